import { Injectable } from '@nestjs/common';
import type { SnapshotTrigger } from '@lib/contracts';
import { keysetTimeSql } from '@lib/database';
import { DataSource, type EntityManager } from 'typeorm';

/** A snapshot's row without its payload. */
export interface SnapshotRow {
  id: string;
  guild_id: string;
  trigger: SnapshotTrigger;
  payload_size: number;
  description: string | null;
  created_by_user: string | null;
  created_at: Date;
}

/** A row with the payload's version and counts, and the payload itself when asked for. */
export type SnapshotDetailRow = SnapshotRow & {
  version: unknown;
  roles: unknown;
  channels: unknown;
  permission_overrides: unknown;
  /** Null where the payload does not keep them (version 1, or left out). */
  members_with_roles: unknown;
  bans: unknown;
  omitted: unknown;
  payload?: unknown;
};

export interface NewSnapshot {
  id: string;
  guildId: string;
  /** The serialised payload, stored as given. */
  json: string;
  size: number;
  trigger: SnapshotTrigger;
  createdByUser: string | null;
  createdByPlatformUserId: string | null;
  description: string | null;
  createdAt: Date;
}

const COLUMNS = 'id, guild_id, trigger, payload_size, description, created_by_user, created_at';

/** `recovery.snapshots`: the stored snapshots, read without their payload unless one is asked for. */
@Injectable()
export class SnapshotsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The guild's newest snapshot's id, any trigger, read in the caller's transaction; null when it has none. */
  async newestId(guildId: string, manager: EntityManager = this.dataSource.manager): Promise<string | null> {
    const [row] = await manager.query<{ id: string }[]>(
      `SELECT id FROM recovery.snapshots WHERE guild_id = $1 ORDER BY created_at DESC, id DESC LIMIT 1`,
      [guildId],
    );
    return row?.id ?? null;
  }

  async insert(manager: EntityManager, snapshot: NewSnapshot): Promise<void> {
    await manager.query(
      `INSERT INTO recovery.snapshots
         (id, guild_id, payload, payload_size, trigger, created_by_user, created_by_platform_user_id,
          description, created_at)
       VALUES ($1, $2, $3::jsonb, $4, $5, $6, $7, $8, $9)`,
      [
        snapshot.id,
        snapshot.guildId,
        snapshot.json,
        snapshot.size,
        snapshot.trigger,
        snapshot.createdByUser,
        snapshot.createdByPlatformUserId,
        snapshot.description,
        snapshot.createdAt,
      ],
    );
  }

  async countManual(guildId: string): Promise<number> {
    const [{ used }] = await this.dataSource.query<{ used: number }[]>(
      `SELECT count(*)::int AS used FROM recovery.snapshots WHERE guild_id = $1 AND trigger = 'manual'`,
      [guildId],
    );
    return used;
  }

  /** Whether a restore of the guild is pending or running (no snapshot is taken meanwhile). */
  async hasActiveRestore(guildId: string): Promise<boolean> {
    const rows = await this.dataSource.query<unknown[]>(
      `SELECT 1 FROM recovery.restore_jobs WHERE guild_id = $1 AND status IN ('pending', 'running') LIMIT 1`,
      [guildId],
    );
    return rows.length > 0;
  }

  /** `limit` rows of the guild after `after` (newest first), with their cursor time. */
  async page(
    guildId: string,
    query: { trigger?: SnapshotTrigger; after: { at: string | null; id: string | null }; limit: number },
  ): Promise<(SnapshotRow & { cursor_at: string })[]> {
    return this.dataSource.query<(SnapshotRow & { cursor_at: string })[]>(
      `SELECT ${COLUMNS}, ${keysetTimeSql('created_at')} AS cursor_at FROM recovery.snapshots
        WHERE guild_id = $1
          AND ($2::text IS NULL OR trigger = $2)
          AND ($3::timestamptz IS NULL OR (created_at, id) < ($3::timestamptz, $4::uuid))
        ORDER BY created_at DESC, id DESC
        LIMIT $5`,
      [guildId, query.trigger ?? null, query.after.at, query.after.id, query.limit],
    );
  }

  async detail(
    guildId: string,
    snapshotId: string,
    includePayload: boolean,
  ): Promise<SnapshotDetailRow | undefined> {
    const [row] = await this.dataSource.query<SnapshotDetailRow[]>(
      `SELECT ${COLUMNS}, payload->'version' AS version,
              jsonb_array_length(payload->'roles') AS roles,
              jsonb_array_length(payload->'channels') AS channels,
              jsonb_array_length(payload->'permission_overrides') AS permission_overrides,
              CASE WHEN payload ? 'member_roles' THEN COALESCE(
                cardinality(string_to_array(NULLIF(payload->'member_roles'->>'members', ''), ',')), 0)
              END AS members_with_roles,
              jsonb_array_length(payload->'bans') AS bans,
              payload->'omitted' AS omitted
              ${includePayload ? ', payload' : ''}
         FROM recovery.snapshots WHERE id = $1 AND guild_id = $2`,
      [snapshotId, guildId],
    );
    return row;
  }

  /** The payload as stored, or undefined when the guild has no such snapshot. */
  async payload(snapshotId: string, guildId: string): Promise<{ payload: unknown } | undefined> {
    const [row] = await this.dataSource.query<{ payload: unknown }[]>(
      `SELECT payload FROM recovery.snapshots WHERE id = $1 AND guild_id = $2`,
      [snapshotId, guildId],
    );
    return row;
  }

  async guildOf(snapshotId: string): Promise<string | null> {
    const [row] = await this.dataSource.query<{ guild_id: string }[]>(
      `SELECT guild_id FROM recovery.snapshots WHERE id = $1`,
      [snapshotId],
    );
    return row?.guild_id ?? null;
  }

  /**
   * Whether a pending or running restore reads the snapshot; the job rows found stay share-locked
   * until the transaction ends, so none of them can start reading meanwhile.
   */
  async isInUse(manager: EntityManager, snapshotId: string): Promise<boolean> {
    const inUse = await manager.query<unknown[]>(
      `SELECT 1 FROM recovery.restore_jobs
        WHERE snapshot_id = $1 AND status IN ('pending', 'running') FOR SHARE`,
      [snapshotId],
    );
    return inUse.length > 0;
  }

  /** Returns how many rows went (0 or 1). */
  async delete(manager: EntityManager, guildId: string, snapshotId: string): Promise<number> {
    const [, deleted] = await manager.query<[unknown, number]>(
      `DELETE FROM recovery.snapshots WHERE id = $1 AND guild_id = $2`,
      [snapshotId, guildId],
    );
    return deleted;
  }
}
