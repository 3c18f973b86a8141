import { Injectable } from '@nestjs/common';
import type { EventPayloads, RestoreResultSummary, SnapshotTrigger } from '@lib/contracts';
import { OutboxWriter } from '@lib/outbox';
import type { EntityManager } from 'typeorm';
import type { IncidentToOpen } from './antinuke/workflows/antinuke-contract';
import type { LockdownRow } from './antinuke/lockdown/lockdown.repository';
import type { EndedJobRow, NewRestoreJob, RestoreJobRow } from './restore/restore-jobs.repository';
import type { RestoreFailure } from './restore/workflows/restore-contract';

/** What SnapshotCreated tells about a snapshot just stored. */
export interface CreatedSnapshotFacts {
  id: string;
  guildId: string;
  guildName: string;
  trigger: SnapshotTrigger;
  createdByUser: string | null;
  createdByPlatformUserId: string | null;
  size: number;
}

/**
 * Recovery's domain events (docs/behaviour.md §6): snapshots, restores and AntiNuke incidents, each written by
 * the caller in the transaction of the change it announces (the outbox writer refuses otherwise).
 */
@Injectable()
export class RecoveryEvents {
  constructor(private readonly outbox: OutboxWriter) {}

  async snapshotCreated(manager: EntityManager, snapshot: CreatedSnapshotFacts): Promise<void> {
    await this.outbox.append(manager, {
      type: 'SnapshotCreated',
      aggregate_type: 'snapshot',
      aggregate_id: snapshot.id,
      guild_id: snapshot.guildId,
      payload: {
        snapshot_id: snapshot.id,
        guild_id: snapshot.guildId,
        trigger: snapshot.trigger,
        created_by_user: snapshot.createdByUser,
        guild_name: snapshot.guildName,
        created_by_platform_user_id: snapshot.createdByPlatformUserId,
        size: snapshot.size,
      },
    });
  }

  async restoreStarted(manager: EntityManager, job: NewRestoreJob): Promise<void> {
    await this.outbox.append(manager, {
      type: 'RestoreStarted',
      ...restoreJobAggregate(job.id, job.guildId),
      payload: {
        restore_job_id: job.id,
        snapshot_id: job.snapshotId,
        guild_id: job.guildId,
        scope: job.scope,
        requested_by_user: job.requestedByUser,
        requested_by_platform_user_id: job.requestedByPlatformUserId,
        ...(job.ownerPlatformUserId ? { owner_platform_user_id: job.ownerPlatformUserId } : {}),
        ...(job.guildName ? { guild_name: job.guildName } : {}),
      },
    });
  }

  async restoreCompleted(
    manager: EntityManager,
    job: EndedJobRow,
    summary: RestoreResultSummary,
  ): Promise<void> {
    await this.outbox.append(manager, {
      type: 'RestoreCompleted',
      ...restoreJobAggregate(job.id, job.guild_id),
      payload: {
        ...endedJobFacts(job),
        result_summary: summary,
        duration_ms: job.completed_at!.getTime() - job.started_at!.getTime(),
      },
    });
  }

  /** `RestoreCanceled` (by the user, or because the guild is gone) or `RestoreFailed`. */
  async restoreEndedUnsuccessfully(
    manager: EntityManager,
    job: EndedJobRow,
    failure: RestoreFailure,
  ): Promise<void> {
    const about = restoreJobAggregate(job.id, job.guild_id);
    const common = endedJobFacts(job);
    if (failure.status === 'canceled') {
      await this.outbox.append(manager, {
        ...about,
        type: 'RestoreCanceled',
        payload: { ...common, reason: failure.code === 'guild_deleted' ? 'guild_deleted' : 'user' },
      });
    } else {
      await this.outbox.append(manager, {
        ...about,
        type: 'RestoreFailed',
        payload: {
          ...common,
          status: 'failed',
          error_code: failure.code,
          error_message: failure.message,
        },
      });
    }
  }

  async antiNukeIncidentOpened(
    manager: EntityManager,
    input: IncidentToOpen,
    guild: { name: string; owner_platform_user_id: string },
  ): Promise<void> {
    const { burst } = input;
    await this.outbox.append(manager, {
      type: 'AntiNukeIncidentOpened',
      aggregate_type: 'antinuke_incident',
      aggregate_id: input.incidentId,
      guild_id: input.guildId,
      occurred_at: new Date(input.openedAt),
      payload: {
        incident_id: input.incidentId,
        guild_id: input.guildId,
        actor_platform_user_id: burst.actor_platform_user_id,
        action: burst.kind,
        count: burst.count,
        snapshot_id: input.snapshotId,
        owner_platform_user_id: guild.owner_platform_user_id,
        guild_name: guild.name,
        auto_action_taken: input.autoActionTaken,
        occurred_at: input.openedAt,
      },
    });
  }

  async lockdownStarted(
    manager: EntityManager,
    lockdown: LockdownRow,
    facts: LockdownEventFacts,
  ): Promise<void> {
    await this.outbox.append(manager, {
      type: 'LockdownStarted',
      ...lockdownAggregate(lockdown),
      payload: {
        ...lockdownSubject(lockdown, facts),
        started_by_user: lockdown.started_by_user,
        started_by_platform_user_id: facts.byPlatformUserId,
        incident_id: lockdown.incident_id,
        lockdown_until: new Date(lockdown.lockdown_until).toISOString(),
        send_messages_taken: lockdown.send_messages_taken,
        everyone_permissions_before: lockdown.everyone_permissions_before ?? '0',
        occurred_at: new Date().toISOString(),
      },
    });
  }

  async lockdownLifted(
    manager: EntityManager,
    lockdown: LockdownRow,
    facts: LockdownEventFacts,
  ): Promise<void> {
    await this.outbox.append(manager, {
      type: 'LockdownLifted',
      ...lockdownAggregate(lockdown),
      payload: {
        ...lockdownSubject(lockdown, facts),
        lifted_by_user: lockdown.lifted_by_user,
        lifted_by_platform_user_id: facts.byPlatformUserId,
        reason: lockdown.lift_reason ?? 'expired',
        send_messages_restored: lockdown.send_messages_taken,
        occurred_at: new Date(lockdown.lifted_at ?? Date.now()).toISOString(),
      },
    });
  }

  // Who loosened AntiNuke or deleted a snapshot: the owner hears of each.

  async antiNukeSettingsChanged(
    manager: EntityManager,
    change: EventPayloads['AntiNukeSettingsChanged'],
  ): Promise<void> {
    await this.outbox.append(manager, {
      type: 'AntiNukeSettingsChanged',
      aggregate_type: 'antinuke_settings',
      aggregate_id: change.guild_id,
      guild_id: change.guild_id,
      payload: change,
    });
  }

  async snapshotDeleted(manager: EntityManager, deleted: EventPayloads['SnapshotDeleted']): Promise<void> {
    await this.outbox.append(manager, {
      type: 'SnapshotDeleted',
      aggregate_type: 'snapshot',
      aggregate_id: deleted.snapshot_id,
      guild_id: deleted.guild_id,
      payload: deleted,
    });
  }

  async snapshotUndeleted(
    manager: EntityManager,
    undeleted: EventPayloads['SnapshotUndeleted'],
  ): Promise<void> {
    await this.outbox.append(manager, {
      type: 'SnapshotUndeleted',
      aggregate_type: 'snapshot',
      aggregate_id: undeleted.snapshot_id,
      guild_id: undeleted.guild_id,
      payload: undeleted,
    });
  }
}

/** What the lockdown events tell about the guild and who acted. */
export interface LockdownEventFacts {
  guildName: string;
  ownerPlatformUserId: string;
  byPlatformUserId: string | null;
}

function lockdownAggregate(lockdown: LockdownRow) {
  return {
    aggregate_type: 'antinuke_lockdown',
    aggregate_id: lockdown.id,
    guild_id: lockdown.guild_id,
  } as const;
}

/** What every lockdown event tells first: the lockdown, its guild, and the owner the notifier DMs. */
function lockdownSubject(lockdown: LockdownRow, facts: LockdownEventFacts) {
  return {
    lockdown_id: lockdown.id,
    guild_id: lockdown.guild_id,
    guild_name: facts.guildName,
    owner_platform_user_id: facts.ownerPlatformUserId,
  };
}

function restoreJobAggregate(jobId: string, guildId: string) {
  return { aggregate_type: 'restore_job', aggregate_id: jobId, guild_id: guildId } as const;
}

/** What every end of a restore (completed, canceled, failed) tells about the job. */
function endedJobFacts(job: EndedJobRow) {
  return {
    restore_job_id: job.id,
    snapshot_id: job.snapshot_id,
    requested_by_user: job.requested_by_user,
    requested_by_platform_user_id: job.requested_by_platform_user_id,
    guild_name: job.guild_name,
    ...preRestoreSnapshot(job),
  };
}

/** What the notifier's DM says about the pre-restore snapshot: asked for, and made or not. */
function preRestoreSnapshot(job: RestoreJobRow) {
  return {
    pre_restore_snapshot_id: job.pre_restore_snapshot_id,
    pre_restore_snapshot_requested: job.options.create_pre_restore_snapshot === true,
  };
}
