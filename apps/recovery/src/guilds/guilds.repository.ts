import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { Guild } from './guild.entity';

/** A registry row read by platform guild id (the dashboard's guild picker). */
export interface RegistryEntry {
  id: string;
  platform_guild_id: string;
  /** The bot is installed and the guild was not removed: the service protects it. */
  active: boolean;
}

/** `recovery.guilds`, the registry: which platform guilds the service protects, under which id. */
@Injectable()
export class GuildsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async findById(guildId: string): Promise<Guild | null> {
    return this.dataSource.getRepository(Guild).findOneBy({ id: guildId });
  }

  async findByPlatformId(platformGuildId: string): Promise<Guild | null> {
    return this.dataSource.getRepository(Guild).findOneBy({ platformGuildId });
  }

  /** The registry's entries of these platform guilds, many at once. */
  async byPlatformIds(platformGuildIds: readonly string[]): Promise<RegistryEntry[]> {
    if (platformGuildIds.length === 0) return [];
    return this.dataSource.query<RegistryEntry[]>(
      `SELECT id, platform_guild_id, (bot_installed_at IS NOT NULL AND removed_at IS NULL) AS active
         FROM recovery.guilds
        WHERE platform_guild_id = ANY($1::text[])`,
      [platformGuildIds],
    );
  }

  /**
   * Moves the guild's access generation on: every replica's cached permission answers for it end
   * at once (they are keyed by the generation read with the guild row).
   */
  async moveAccessGeneration(platformGuildId: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE recovery.guilds SET access_generation = access_generation + 1 WHERE platform_guild_id = $1`,
      [platformGuildId],
    );
  }

  /** Active guilds: bot installed, not removed. */
  async findActive(): Promise<Guild[]> {
    return this.dataSource
      .getRepository(Guild)
      .createQueryBuilder('guild')
      .where('guild.bot_installed_at IS NOT NULL AND guild.removed_at IS NULL')
      .getMany();
  }

  /** Whether the guild is in the registry, read in the caller's transaction. */
  async exists(guildId: string, manager: EntityManager = this.dataSource.manager): Promise<boolean> {
    const rows = await manager.query<unknown[]>(`SELECT 1 FROM recovery.guilds WHERE id = $1`, [guildId]);
    return rows.length > 0;
  }

  /**
   * Registers the platform guild under `id`, or re-activates (and renames) the registered one;
   * returns the id the registry holds for it.
   */
  async upsertInstalled(guild: {
    id: string;
    platformGuildId: string;
    name: string;
    ownerPlatformUserId: string;
  }): Promise<string> {
    const [row] = await this.dataSource.query<{ id: string }[]>(
      `INSERT INTO recovery.guilds (id, platform_guild_id, name, owner_platform_user_id, bot_installed_at)
       VALUES ($1, $2, $3, $4, now())
       ON CONFLICT (platform_guild_id) DO UPDATE
         SET name = EXCLUDED.name,
             owner_platform_user_id = EXCLUDED.owner_platform_user_id,
             bot_installed_at = COALESCE(recovery.guilds.bot_installed_at, now()),
             removed_at = NULL,
             updated_at = now()
       RETURNING id`,
      [guild.id, guild.platformGuildId, guild.name, guild.ownerPlatformUserId],
    );
    return row.id;
  }
}
