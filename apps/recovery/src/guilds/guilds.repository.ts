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

  /** The registered, active guild of a platform guild id, read in the caller's transaction. */
  async activeByPlatformId(
    platformGuildId: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<{ id: string } | null> {
    const [row] = await manager.query<{ id: string }[]>(
      `SELECT id FROM recovery.guilds
        WHERE platform_guild_id = $1 AND bot_installed_at IS NOT NULL AND removed_at IS NULL`,
      [platformGuildId],
    );
    return row ?? null;
  }

  /**
   * The bot was removed from the platform guild: the registry stops protecting it (`removed_at`)
   * until it is registered again. Returns the guild when this call removed it, null when it was
   * not registered or already removed.
   */
  async markRemoved(
    platformGuildId: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<{ id: string; name: string; owner_platform_user_id: string } | null> {
    const [rows] = await manager.query<
      [{ id: string; name: string; owner_platform_user_id: string }[], number]
    >(
      `UPDATE recovery.guilds SET removed_at = now(), updated_at = now()
        WHERE platform_guild_id = $1 AND removed_at IS NULL
        RETURNING id, name, owner_platform_user_id`,
      [platformGuildId],
    );
    return rows[0] ?? null;
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
