import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

export interface RegistryEntry {
  id: string;
  platform_guild_id: string;
  /** The bot is installed and the guild was not removed: the service protects it. */
  active: boolean;
}

/** The guild registry read by platform guild id, many at once (the dashboard's guild picker). */
@Injectable()
export class GuildLookupRepository {
  constructor(private readonly dataSource: DataSource) {}

  async byPlatformIds(platformGuildIds: readonly string[]): Promise<RegistryEntry[]> {
    if (platformGuildIds.length === 0) return [];
    return this.dataSource.query<RegistryEntry[]>(
      `SELECT id, platform_guild_id, (bot_installed_at IS NOT NULL AND removed_at IS NULL) AS active
         FROM recovery.guilds
        WHERE platform_guild_id = ANY($1::text[])`,
      [platformGuildIds],
    );
  }
}
