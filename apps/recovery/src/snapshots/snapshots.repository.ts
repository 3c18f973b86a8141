import { Injectable } from '@nestjs/common';
import type { SnapshotTrigger } from '@lib/contracts';
import { keysetTimeSql } from '@lib/database';
import { DataSource, type EntityManager } from 'typeorm';
import type { KeptSnapshot, LimitedTrigger } from './snapshot-limits';

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
  emojis: unknown;
  stickers: unknown;
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

  /**
   * Reserves the guild's one manual snapshot in flight for `token`: true when this call holds it,
   * false while another request does. A reservation older than `staleBefore` was left by a process
   * that stopped mid-snapshot, and is taken over.
   */
  async reserveManual(guildId: string, token: string, staleBefore: Date): Promise<boolean> {
    const rows = await this.dataSource.query<unknown[]>(
      `INSERT INTO recovery.manual_snapshot_reservations AS r (guild_id, token) VALUES ($1, $2)
       ON CONFLICT (guild_id) DO UPDATE SET token = EXCLUDED.token, reserved_at = now()
         WHERE r.reserved_at < $3
       RETURNING guild_id`,
      [guildId, token, staleBefore],
    );
    return rows.length > 0;
  }

  /**
   * Gives the reservation back, in the caller's transaction (the one storing the snapshot); false
   * when `token` no longer holds it (taken over as stale: the snapshot must not be stored).
   */
  async releaseManual(
    guildId: string,
    token: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<boolean> {
    const rows = await manager.query<unknown[]>(
      `DELETE FROM recovery.manual_snapshot_reservations WHERE guild_id = $1 AND token = $2 RETURNING guild_id`,
      [guildId, token],
    );
    return rows.length > 0;
  }

  /**
   * The guild's snapshots of `trigger`, each with whether something still needs it, read under a
   * transaction lock on the guild and kind, so concurrent takers make room one after the other.
   */
  async keptOfKind(
    manager: EntityManager,
    guildId: string,
    trigger: LimitedTrigger,
    now: Date,
  ): Promise<KeptSnapshot[]> {
    await manager.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`snapshots:${trigger}:${guildId}`]);
    return manager.query<KeptSnapshot[]>(
      `SELECT s.id, s.created_at,
              (EXISTS (SELECT 1 FROM recovery.restore_jobs j
                        WHERE j.status IN ('pending', 'running')
                          AND (j.snapshot_id = s.id OR j.pre_restore_snapshot_id = s.id))
               OR EXISTS (SELECT 1 FROM recovery.antinuke_incidents i
                           WHERE ${openIncidentKeeps('i', 's.id', '$3')})) AS needed
         FROM recovery.snapshots s
        WHERE s.guild_id = $1 AND s.trigger = $2`,
      [guildId, trigger, now],
    );
  }

  /** Deletes these snapshots of the guild (making room for a new one); returns how many went. */
  async deleteToMakeRoom(manager: EntityManager, guildId: string, snapshotIds: string[]): Promise<number> {
    if (snapshotIds.length === 0) return 0;
    const [, deleted] = await manager.query<[unknown, number]>(
      `DELETE FROM recovery.snapshots WHERE guild_id = $1 AND id = ANY($2::uuid[])`,
      [guildId, snapshotIds],
    );
    return deleted;
  }

  async countManual(guildId: string): Promise<number> {
    const [{ used }] = await this.dataSource.query<{ used: number }[]>(
      `SELECT count(*)::int AS used FROM recovery.snapshots
        WHERE guild_id = $1 AND trigger = 'manual' AND deleted_at IS NULL`,
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
        WHERE guild_id = $1 AND deleted_at IS NULL
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
              jsonb_array_length(payload->'emojis') AS emojis,
              jsonb_array_length(payload->'stickers') AS stickers,
              payload->'omitted' AS omitted
              ${includePayload ? ', payload' : ''}
         FROM recovery.snapshots WHERE id = $1 AND guild_id = $2 AND deleted_at IS NULL`,
      [snapshotId, guildId],
    );
    return row;
  }

  /**
   * The payload as stored, or undefined when the guild has no such snapshot or it was deleted (a
   * restore from a deleted snapshot is refused as from a missing one).
   */
  async payload(snapshotId: string, guildId: string): Promise<{ payload: unknown } | undefined> {
    const [row] = await this.dataSource.query<{ payload: unknown }[]>(
      `SELECT payload FROM recovery.snapshots WHERE id = $1 AND guild_id = $2 AND deleted_at IS NULL`,
      [snapshotId, guildId],
    );
    return row;
  }

  /** The guild of a snapshot; a deleted one counts as missing unless `deleted` asks for those alone. */
  async guildOf(snapshotId: string, { deleted = false }: { deleted?: boolean } = {}): Promise<string | null> {
    const [row] = await this.dataSource.query<{ guild_id: string }[]>(
      `SELECT guild_id FROM recovery.snapshots WHERE id = $1 AND (deleted_at IS NOT NULL) = $2`,
      [snapshotId, deleted],
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

  /**
   * Whether the snapshot is the one an open AntiNuke incident keeps: an incident is open until a
   * week after the raider's last counted action (its snapshot must outlive the raid's aftermath).
   */
  async isOpenIncidentSnapshot(manager: EntityManager, snapshotId: string, now: Date): Promise<boolean> {
    const rows = await manager.query<unknown[]>(
      `SELECT 1 FROM recovery.antinuke_incidents i WHERE ${openIncidentKeeps('i', '$1', '$2')} LIMIT 1`,
      [snapshotId, now],
    );
    return rows.length > 0;
  }

  /** Hides the snapshot as deleted by `by`; returns what it was, or null when there was none to delete. */
  async softDelete(
    manager: EntityManager,
    guildId: string,
    snapshotId: string,
    by: { userId: string | null; platformUserId: string },
  ): Promise<DeletedSnapshotRow | null> {
    const [rows] = await manager.query<[DeletedSnapshotRow[], number]>(
      `UPDATE recovery.snapshots
          SET deleted_at = now(), deleted_by_user = $3, deleted_by_platform_user_id = $4
        WHERE id = $1 AND guild_id = $2 AND deleted_at IS NULL
        RETURNING ${COLUMNS}, deleted_at, deleted_by_platform_user_id`,
      [snapshotId, guildId, by.userId, by.platformUserId],
    );
    return rows[0] ?? null;
  }

  /** Shows a snapshot deleted after `deletedAfter` again; returns it as it was, or null. */
  async undelete(
    manager: EntityManager,
    guildId: string,
    snapshotId: string,
    deletedAfter: Date,
  ): Promise<DeletedSnapshotRow | null> {
    const [rows] = await manager.query<[DeletedSnapshotRow[], number]>(
      `UPDATE recovery.snapshots s
          SET deleted_at = NULL, deleted_by_user = NULL, deleted_by_platform_user_id = NULL
         FROM recovery.snapshots old
        WHERE s.id = old.id AND s.id = $1 AND s.guild_id = $2 AND s.deleted_at > $3
        RETURNING ${prefixed('s')}, old.deleted_at, old.deleted_by_platform_user_id`,
      [snapshotId, guildId, deletedAfter],
    );
    return rows[0] ?? null;
  }

  /** The guild's snapshots deleted after `deletedAfter` (still undoable), most recently deleted first. */
  async deleted(guildId: string, deletedAfter: Date): Promise<DeletedSnapshotRow[]> {
    return this.dataSource.query<DeletedSnapshotRow[]>(
      `SELECT ${COLUMNS}, deleted_at, deleted_by_platform_user_id FROM recovery.snapshots
        WHERE guild_id = $1 AND deleted_at > $2
        ORDER BY deleted_at DESC, id DESC LIMIT 200`,
      [guildId, deletedAfter],
    );
  }
}

/** How long after its last counted action an AntiNuke incident stays open. */
export const INCIDENT_OPEN_DAYS = 7;

/**
 * SQL: incident `i` is open at `now` and keeps `snapshot` (its own snapshot or its undo's): such a
 * snapshot is neither deleted by a user nor dropped to make room.
 */
function openIncidentKeeps(i: string, snapshot: string, now: string): string {
  return `(${i}.snapshot_id = ${snapshot} OR ${i}.undo_snapshot_id = ${snapshot})
    AND ${i}.last_action_at > ${now}::timestamptz - interval '${INCIDENT_OPEN_DAYS} days'`;
}

export type DeletedSnapshotRow = SnapshotRow & { deleted_at: Date; deleted_by_platform_user_id: string };

function prefixed(alias: string): string {
  return COLUMNS.split(', ')
    .map((column) => `${alias}.${column}`)
    .join(', ');
}
