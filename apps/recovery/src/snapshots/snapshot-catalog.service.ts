import { Injectable } from '@nestjs/common';
import type { SnapshotTrigger } from '@lib/contracts';
import { type KeysetPage, keysetPage, keysetStart } from '@lib/database';
import { ConflictError } from '@lib/problem-details';
import { DataSource } from 'typeorm';
import { snapshotNotFound } from './snapshot-guild.lookup';
import type { OmittedPart } from './snapshot-payload';
import type { SnapshotDetailView, SnapshotSummaryView } from './snapshots.dto';
import { type SnapshotRow, SnapshotsRepository } from './snapshots.repository';

/**
 * Listing, reading and deleting snapshots, so a user can see them and free a manual slot. The
 * routes have checked MANAGE_GUILD on the snapshot's guild (SnapshotGuildLookup) and pass it in.
 */
@Injectable()
export class SnapshotCatalog {
  constructor(
    private readonly dataSource: DataSource,
    private readonly snapshots: SnapshotsRepository,
  ) {}

  async list(
    guildId: string,
    query: { trigger?: SnapshotTrigger; limit: number; cursor?: string },
  ): Promise<KeysetPage<SnapshotSummaryView>> {
    const after = keysetStart(query.cursor);
    const rows = await this.snapshots.page(guildId, {
      trigger: query.trigger,
      after,
      limit: query.limit + 1,
    });
    return keysetPage(rows, query.limit, toSummary);
  }

  /** The snapshot of the guild the caller manages (`find` said which guild that is). */
  async get(guildId: string, snapshotId: string, includePayload: boolean): Promise<SnapshotDetailView> {
    const row = await this.snapshots.detail(guildId, snapshotId, includePayload);
    if (!row) throw snapshotNotFound();
    return {
      ...toSummary(row),
      version: Number(row.version),
      counts: {
        roles: Number(row.roles),
        channels: Number(row.channels),
        permission_overrides: Number(row.permission_overrides),
        members_with_roles: row.members_with_roles === null ? null : Number(row.members_with_roles),
        bans: row.bans === null ? null : Number(row.bans),
      },
      omitted: (row.omitted ?? []) as OmittedPart[],
      ...(includePayload ? { payload: row.payload as SnapshotDetailView['payload'] } : {}),
    };
  }

  /** Refused while a pending or running restore reads the snapshot. */
  async delete(guildId: string, snapshotId: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      if (await this.snapshots.isInUse(manager, snapshotId)) {
        throw new ConflictError(
          'ErrSnapshotInUse',
          'A running restore is using this snapshot. Delete it afterwards.',
        );
      }
      const deleted = await this.snapshots.delete(manager, guildId, snapshotId);
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
