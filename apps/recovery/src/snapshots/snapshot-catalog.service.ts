import { Inject, Injectable, Optional } from '@nestjs/common';
import { ChatPlatformClient } from '@lib/chat-platform';
import type { SnapshotTrigger } from '@lib/contracts';
import { type KeysetPage, keysetPage, keysetStart } from '@lib/database';
import { DataSource } from 'typeorm';
import { DEFAULT_GUARD_SETTINGS, GUARD_SETTINGS, type GuardSettings } from '../antinuke/guard-settings';
import { ownerOnly } from '../antinuke/owner-only';
import { isGuildOwner } from '../guilds/guild-owner';
import { GuildRegistry } from '../guilds/guild-registry.service';
import { RecoveryEvents } from '../recovery-events';
import type { OmittedPart } from './snapshot-payload';
import type { DeletedSnapshotView, SnapshotDetailView, SnapshotSummaryView } from './snapshots.dto';
import {
  type DeletedSnapshotRow,
  INCIDENT_OPEN_DAYS,
  type SnapshotRow,
  SnapshotsRepository,
} from './snapshots.repository';
import { SnapshotErrors } from './snapshots.errors';

const DAY_MS = 86_400_000;

/** Who deletes or undeletes. */
export interface SnapshotActor {
  userId: string | null;
  platformUserId: string;
}

/**
 * Listing, reading and deleting snapshots, so a user can see them and free a manual slot. The
 * routes have checked MANAGE_GUILD on the snapshot's guild (SnapshotGuildLookup) and pass it in.
 */
@Injectable()
export class SnapshotCatalog {
  private readonly graceMs: number;

  constructor(
    private readonly dataSource: DataSource,
    private readonly snapshots: SnapshotsRepository,
    private readonly guilds: GuildRegistry,
    private readonly platform: ChatPlatformClient,
    private readonly events: RecoveryEvents,
    @Optional() @Inject(GUARD_SETTINGS) guard: GuardSettings = DEFAULT_GUARD_SETTINGS,
  ) {
    this.graceMs = guard.snapshotDeleteGraceDays * DAY_MS;
  }

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
    if (!row) throw SnapshotErrors.notFound();
    return {
      ...toSummary(row),
      version: Number(row.version),
      counts: {
        roles: Number(row.roles),
        channels: Number(row.channels),
        permission_overrides: Number(row.permission_overrides),
        members_with_roles: row.members_with_roles === null ? null : Number(row.members_with_roles),
        bans: row.bans === null ? null : Number(row.bans),
        emojis: row.emojis === null ? null : Number(row.emojis),
        stickers: row.stickers === null ? null : Number(row.stickers),
      },
      omitted: (row.omitted ?? []) as OmittedPart[],
      ...(includePayload ? { payload: row.payload as SnapshotDetailView['payload'] } : {}),
    };
  }

  /**
   * A soft delete, by anyone who manages the guild: the snapshot is hidden (404 as if gone, its
   * manual slot free) and the owner can undo it for the grace period, after which retention purges
   * it. Refused while a pending or running restore reads it, and while an open incident keeps it.
   */
  async delete(guildId: string, snapshotId: string, actor: SnapshotActor): Promise<void> {
    const guild = await this.guilds.get(guildId);
    await this.dataSource.transaction(async (manager) => {
      if (await this.snapshots.isInUse(manager, snapshotId)) {
        throw SnapshotErrors.inUse();
      }
      if (await this.snapshots.isOpenIncidentSnapshot(manager, snapshotId, new Date())) {
        throw SnapshotErrors.ofOpenIncident(
          `This snapshot belongs to an AntiNuke incident that is still open (until ${INCIDENT_OPEN_DAYS} days after the raider's last action). It cannot be deleted before then.`,
        );
      }
      const deleted = await this.snapshots.softDelete(manager, guildId, snapshotId, actor);
      if (!deleted) throw SnapshotErrors.notFound();
      await this.events.snapshotDeleted(manager, {
        snapshot_id: snapshotId,
        guild_id: guildId,
        guild_name: guild.name,
        owner_platform_user_id: guild.ownerPlatformUserId,
        trigger: deleted.trigger,
        snapshot_created_at: new Date(deleted.created_at).toISOString(),
        deleted_by_user: actor.userId,
        deleted_by_platform_user_id: actor.platformUserId,
        purge_after: new Date(new Date(deleted.deleted_at).getTime() + this.graceMs).toISOString(),
      });
    });
  }

  /** The owner undoes a delete within the grace period (404 after it, as for a purged snapshot). */
  async undelete(guildId: string, snapshotId: string, actor: SnapshotActor): Promise<DeletedSnapshotView> {
    const guild = await this.guilds.get(guildId);
    if (!(await isGuildOwner(this.platform, guild, actor.platformUserId))) throw ownerOnly();
    return this.dataSource.transaction(async (manager) => {
      const row = await this.snapshots.undelete(manager, guildId, snapshotId, this.graceStart());
      if (!row) throw SnapshotErrors.notFound();
      await this.events.snapshotUndeleted(manager, {
        snapshot_id: snapshotId,
        guild_id: guildId,
        guild_name: guild.name,
        owner_platform_user_id: guild.ownerPlatformUserId,
        trigger: row.trigger,
        undeleted_by_user: actor.userId,
        undeleted_by_platform_user_id: actor.platformUserId,
        deleted_by_platform_user_id: row.deleted_by_platform_user_id,
      });
      return this.toDeleted(row);
    });
  }

  /** The deleted snapshots the owner can still bring back, most recently deleted first. */
  async listDeleted(guildId: string, actor: SnapshotActor): Promise<{ items: DeletedSnapshotView[] }> {
    const guild = await this.guilds.get(guildId);
    if (!(await isGuildOwner(this.platform, guild, actor.platformUserId))) throw ownerOnly();
    const rows = await this.snapshots.deleted(guildId, this.graceStart());
    return { items: rows.map((row) => this.toDeleted(row)) };
  }

  /** Snapshots deleted after this can still be undone. */
  private graceStart(): Date {
    return new Date(Date.now() - this.graceMs);
  }

  private toDeleted(row: DeletedSnapshotRow): DeletedSnapshotView {
    const deletedAt = new Date(row.deleted_at);
    return {
      ...toSummary(row),
      deleted_at: deletedAt.toISOString(),
      deleted_by_platform_user_id: row.deleted_by_platform_user_id,
      purge_after: new Date(deletedAt.getTime() + this.graceMs).toISOString(),
    };
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
