import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { AntiNukeSettings } from './workflows/antinuke-contract';
import type { SettingField } from './settings-change';

/** A change loosening AntiNuke, waiting for its time or the owner. */
export interface PendingChange {
  id: string;
  guild_id: string;
  requested_by_user: string | null;
  requested_by_platform_user_id: string;
  before: AntiNukeSettings;
  after: AntiNukeSettings;
  loosened: SettingField[];
  requested_at: Date;
  applies_at: Date;
}

const COLUMNS = `id, guild_id, requested_by_user, requested_by_platform_user_id, before, after, loosened,
                 requested_at, applies_at`;

/** `recovery.antinuke_pending_changes`: at most one per guild. */
@Injectable()
export class PendingChangesRepository {
  constructor(private readonly dataSource: DataSource) {}

  async get(
    guildId: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<PendingChange | null> {
    const [row] = await manager.query<PendingChange[]>(
      `SELECT ${COLUMNS} FROM recovery.antinuke_pending_changes WHERE guild_id = $1`,
      [guildId],
    );
    return row ?? null;
  }

  /** Stores `change` as the guild's pending change; returns the id of the one it replaced, if any. */
  async replace(manager: EntityManager, change: Omit<PendingChange, 'requested_at'>): Promise<string | null> {
    const [replaced] = await manager.query<[{ id: string }[], number]>(
      `DELETE FROM recovery.antinuke_pending_changes WHERE guild_id = $1 RETURNING id`,
      [change.guild_id],
    );
    await manager.query(
      `INSERT INTO recovery.antinuke_pending_changes
         (id, guild_id, requested_by_user, requested_by_platform_user_id, before, after, loosened, applies_at)
       VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7, $8)`,
      [
        change.id,
        change.guild_id,
        change.requested_by_user,
        change.requested_by_platform_user_id,
        JSON.stringify(change.before),
        JSON.stringify(change.after),
        change.loosened,
        change.applies_at,
      ],
    );
    return replaced[0]?.id ?? null;
  }

  /**
   * Removes and returns the guild's pending change `changeId` (any, when null) that is due by `dueBy`
   * (whatever its time, when null); null when there is none. Another transaction taking the same
   * row waits, then finds nothing.
   */
  async take(
    manager: EntityManager,
    guildId: string,
    { changeId = null, dueBy = null }: { changeId?: string | null; dueBy?: Date | null },
  ): Promise<PendingChange | null> {
    const [rows] = await manager.query<[PendingChange[], number]>(
      `DELETE FROM recovery.antinuke_pending_changes
        WHERE guild_id = $1 AND ($2::uuid IS NULL OR id = $2) AND ($3::timestamptz IS NULL OR applies_at <= $3)
        RETURNING ${COLUMNS}`,
      [guildId, changeId, dueBy],
    );
    return rows[0] ?? null;
  }

  /** Guilds whose pending change is due by `now`, soonest first. */
  async dueGuilds(now: Date, limit: number): Promise<string[]> {
    const rows = await this.dataSource.query<{ guild_id: string }[]>(
      `SELECT guild_id FROM recovery.antinuke_pending_changes WHERE applies_at <= $1 ORDER BY applies_at LIMIT $2`,
      [now, limit],
    );
    return rows.map((row) => row.guild_id);
  }
}
