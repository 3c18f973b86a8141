import { Injectable } from '@nestjs/common';
import type { InternalIdentity, SnapshotTrigger } from '@lib/contracts';
import { decodeKeysetCursor, encodeKeysetCursor, keysetTimeSql } from '@lib/database';
import { ConflictError, DomainError, NotFoundError } from '@lib/problem-details';
import { DataSource } from 'typeorm';
import { GuildAccessService } from '../guilds/guild-access.service';
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

/** Listing, reading and deleting snapshots, so a user can see them and free a manual slot. */
@Injectable()
export class SnapshotCatalog {
  constructor(
    private readonly dataSource: DataSource,
    private readonly access: GuildAccessService,
  ) {}

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

  /**
   * The snapshot, if the caller administers its guild. A snapshot of another guild answers 404
   * like a missing one, so ids cannot be probed.
   */
  async get(
    identity: InternalIdentity,
    snapshotId: string,
    includePayload: boolean,
  ): Promise<SnapshotDetailView> {
    const [row] = await this.dataSource.query<(SnapshotRow & Record<string, unknown>)[]>(
      `SELECT ${COLUMNS}, payload->'version' AS version,
              jsonb_array_length(payload->'roles') AS roles,
              jsonb_array_length(payload->'channels') AS channels,
              jsonb_array_length(payload->'permission_overrides') AS permission_overrides
              ${includePayload ? ', payload' : ''}
         FROM recovery.snapshots WHERE id = $1`,
      [snapshotId],
    );
    if (!row) throw snapshotNotFound();
    await this.requireManageGuildOrHide(identity, row.guild_id);
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
  async delete(identity: InternalIdentity, snapshotId: string): Promise<void> {
    const [row] = await this.dataSource.query<{ guild_id: string }[]>(
      `SELECT guild_id FROM recovery.snapshots WHERE id = $1`,
      [snapshotId],
    );
    if (!row) throw snapshotNotFound();
    await this.requireManageGuildOrHide(identity, row.guild_id);
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
      await manager.query(`DELETE FROM recovery.snapshots WHERE id = $1`, [snapshotId]);
    });
  }

  private async requireManageGuildOrHide(identity: InternalIdentity, guildId: string): Promise<void> {
    try {
      await this.access.requireManageGuild(identity, guildId);
    } catch (error) {
      if (error instanceof DomainError && (error.status === 403 || error.status === 404))
        throw snapshotNotFound();
      throw error;
    }
  }
}

function snapshotNotFound(): NotFoundError {
  return new NotFoundError('ErrSnapshotNotFound', 'Snapshot');
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
