import { Injectable } from '@nestjs/common';
import type { SnapshotTrigger } from '@lib/contracts';
import { decodeKeysetCursor, encodeKeysetCursor, keysetTimeSql } from '@lib/database';
import { ConflictError } from '@lib/problem-details';
import { DataSource } from 'typeorm';
import { snapshotNotFound } from './snapshot-guild.lookup';
import type { SnapshotDetailView, SnapshotSummaryView } from './snapshots.dto';

interface SnapshotRow {
  id: string;
  guild_id: string;
  trigger: SnapshotTrigger;
  payload_size: number;
  description: string | null;
  created_by_user: string | null;
  created_at: Date;
}

const COLUMNS = 'id, guild_id, trigger, payload_size, description, created_by_user, created_at';

/**
 * Listing, reading and deleting snapshots, so a user can see them and free a manual slot. The
 * routes have checked MANAGE_GUILD on the snapshot's guild (SnapshotGuildLookup) and pass it in.
 */
@Injectable()
export class SnapshotCatalog {
  constructor(private readonly dataSource: DataSource) {}

  async list(
    guildId: string,
    query: { trigger?: SnapshotTrigger; limit: number; cursor?: string },
  ): Promise<{ items: SnapshotSummaryView[]; next_cursor: string | null }> {
    const after = query.cursor ? decodeKeysetCursor(query.cursor) : null;
    const rows = await this.dataSource.query<(SnapshotRow & { cursor_at: string })[]>(
      `SELECT ${COLUMNS}, ${keysetTimeSql('created_at')} AS cursor_at FROM recovery.snapshots
        WHERE guild_id = $1
          AND ($2::text IS NULL OR trigger = $2)
          AND ($3::timestamptz IS NULL OR (created_at, id) < ($3::timestamptz, $4::uuid))
        ORDER BY created_at DESC, id DESC
        LIMIT $5`,
      [guildId, query.trigger ?? null, after?.at ?? null, after?.id ?? null, query.limit + 1],
    );
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    return {
      items: page.map(toSummary),
      next_cursor:
        rows.length > query.limit && last ? encodeKeysetCursor({ at: last.cursor_at, id: last.id }) : null,
    };
  }

  /** The snapshot of the guild the caller manages (`find` said which guild that is). */
  async get(guildId: string, snapshotId: string, includePayload: boolean): Promise<SnapshotDetailView> {
    const [row] = await this.dataSource.query<(SnapshotRow & Record<string, unknown>)[]>(
      `SELECT ${COLUMNS}, payload->'version' AS version,
              jsonb_array_length(payload->'roles') AS roles,
              jsonb_array_length(payload->'channels') AS channels,
              jsonb_array_length(payload->'permission_overrides') AS permission_overrides
              ${includePayload ? ', payload' : ''}
         FROM recovery.snapshots WHERE id = $1 AND guild_id = $2`,
      [snapshotId, guildId],
    );
    if (!row) throw snapshotNotFound();
    return {
      ...toSummary(row),
      version: Number(row.version),
      counts: {
        roles: Number(row.roles),
        channels: Number(row.channels),
        permission_overrides: Number(row.permission_overrides),
      },
      ...(includePayload ? { payload: row.payload as SnapshotDetailView['payload'] } : {}),
    };
  }

  /** Refused while a pending or running restore reads the snapshot. */
  async delete(guildId: string, snapshotId: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const inUse = await manager.query<unknown[]>(
        `SELECT 1 FROM recovery.restore_jobs
          WHERE snapshot_id = $1 AND status IN ('pending', 'running') FOR SHARE`,
        [snapshotId],
      );
      if (inUse.length > 0) {
        throw new ConflictError(
          'ErrSnapshotInUse',
          'A running restore is using this snapshot. Delete it afterwards.',
        );
      }
      const [, deleted] = await manager.query<[unknown, number]>(
        `DELETE FROM recovery.snapshots WHERE id = $1 AND guild_id = $2`,
        [snapshotId, guildId],
      );
      if (deleted === 0) throw snapshotNotFound();
    });
  }
}

function toSummary(row: SnapshotRow): SnapshotSummaryView {
  return {
    id: row.id,
    guild_id: row.guild_id,
    trigger: row.trigger,
    size: row.payload_size,
    description: row.description,
    created_by_user: row.created_by_user,
    created_at: new Date(row.created_at).toISOString(),
  };
}
