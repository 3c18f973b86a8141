import { firstRow } from '@lib/database';
import { Injectable } from '@nestjs/common';
import type { RestoreResultSummary, RestoreScope } from '@lib/contracts';
import { Counter, Histogram } from 'prom-client';
import { DataSource, type EntityManager } from 'typeorm';
import { RecoveryEvents } from '../recovery-events';
import type { RestoreDiff } from './restore-diff';
import type { RestoreFailure, RestoreResume } from './workflows/restore-contract';

export type RestoreJobStatus = 'pending' | 'running' | 'completed' | 'failed' | 'canceled';

/**
 * A webhook the restore made anew in place of the snapshot's `original_id`, with its new address:
 * a credential (whoever holds it posts in the channel), kept here only, never logged nor sent in
 * an event, shown on the job to the guild's owner.
 */
export interface NewWebhookAddress {
  original_id: string;
  webhook_id: string;
  name: string;
  channel_id: string;
  channel_name: string;
  address: string;
}

/** Workflow outcomes: how restore jobs end, whichever engine ran them. */
const restoreJobsEnded = new Counter({
  name: 'restore_jobs_ended_total',
  help: 'Restore jobs ended, by status (completed, failed, canceled) and code',
  labelNames: ['status', 'code'],
});
const restoreDuration = new Histogram({
  name: 'restore_duration_seconds',
  help: 'From start to completion of the restores that completed',
  buckets: [1, 5, 15, 30, 60, 120, 300, 600, 1800],
});

/** A `recovery.restore_jobs` row (docs/behaviour.md §2.1), as stored. */
export interface RestoreJobRow {
  id: string;
  guild_id: string;
  snapshot_id: string;
  requested_by_user: string;
  /** Null only for jobs started before it was recorded. */
  requested_by_platform_user_id: string | null;
  scope: RestoreScope[];
  options: { create_pre_restore_snapshot: boolean };
  status: RestoreJobStatus;
  preview_diff: RestoreDiff;
  engine_workflow_id: string | null;
  error_message: string | null;
  result_summary: RestoreResultSummary | null;
  pre_restore_snapshot_id: string | null;
  warnings: { code: string; message: string }[];
  cancel_requested_at: Date | null;
  /** An in-process run's wait its process stopped in, for the next start to take up. */
  left_waiting: RestoreResume | null;
  /** The webhooks the restore made anew, by the snapshot's webhook id (the last made for each). */
  new_webhooks: Record<string, NewWebhookAddress>;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
}

export interface NewRestoreJob {
  id: string;
  guildId: string;
  snapshotId: string;
  requestedByUser: string;
  requestedByPlatformUserId: string;
  scope: RestoreScope[];
  options: { create_pre_restore_snapshot: boolean };
  previewDiff: RestoreDiff;
  /** For RestoreStarted: the guild's name and owner (who hears of a restore someone else started). */
  guildName?: string;
  ownerPlatformUserId?: string;
}

const ACTIVE = `status IN ('pending', 'running')`;

/** What a start found: the job it inserted, or the guild's active job, which won. */
export type PendingJobInsert =
  { inserted: true; job: RestoreJobRow } | { inserted: false; active: RestoreJobRow };

/** A job that has just ended, with its guild's registry name for the event (the notifier's DM). */
export type EndedJobRow = RestoreJobRow & { guild_name: string };

/**
 * Ends an active job with `assignments` and returns it with its guild's current registry name.
 * Columns the guild shares with the job (`id`, `created_at`) must be qualified in `assignments`.
 */
const END_ACTIVE_JOB = (assignments: string) => `
  UPDATE recovery.restore_jobs
     SET ${assignments}
    FROM recovery.guilds g
   WHERE restore_jobs.id = $1 AND g.id = restore_jobs.guild_id AND restore_jobs.status IN ('pending', 'running')
  RETURNING restore_jobs.*, g.name AS guild_name`;

/**
 * Every write to a restore job, each one transaction with its event: the API creates and starts
 * jobs, the workflow's activities record what happened and end them. Endings apply once: a
 * retried activity finds the job already ended and changes nothing.
 */
@Injectable()
export class RestoreJobsRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly events: RecoveryEvents,
  ) {}

  get(jobId: string, manager: EntityManager = this.dataSource.manager): Promise<RestoreJobRow | null> {
    return firstRow<RestoreJobRow>(manager, `SELECT * FROM recovery.restore_jobs WHERE id = $1`, [jobId]);
  }

  findActive(guildId: string): Promise<RestoreJobRow | null> {
    return firstRow<RestoreJobRow>(
      this.dataSource,
      `SELECT * FROM recovery.restore_jobs WHERE guild_id = $1 AND ${ACTIVE}`,
      [guildId],
    );
  }

  /**
   * Roles and channels the guild's restores created in the last `windowSeconds` (the platform's
   * creation quota window), as their summaries count them: what a new restore's estimate finds
   * already spent of the quota. Runs that ended without a summary (failed, canceled) are not known.
   */
  async recentCreations(
    guildId: string,
    windowSeconds: number,
  ): Promise<{ roles: number; channels: number }> {
    const [row] = await this.dataSource.query<{ roles: string; channels: string }[]>(
      `SELECT coalesce(sum((result_summary->>'roles_created')::int), 0) AS roles,
              coalesce(sum((result_summary->>'channels_created')::int), 0) AS channels
         FROM recovery.restore_jobs
        WHERE guild_id = $1 AND result_summary IS NOT NULL
          AND completed_at > now() - make_interval(secs => $2)`,
      [guildId, windowSeconds],
    );
    return { roles: Number(row.roles), channels: Number(row.channels) };
  }

  /**
   * Jobs `pending` that no engine ever took, created before `before`: their process stopped between
   * the job's insert and its start (with the in-process engine, only a predecessor's can be).
   */
  async findNeverStarted(before: Date): Promise<RestoreJobRow[]> {
    return this.dataSource.query<RestoreJobRow[]>(
      `SELECT * FROM recovery.restore_jobs
        WHERE status = 'pending' AND engine_workflow_id IS NULL AND created_at < $1
        ORDER BY created_at`,
      [before],
    );
  }

  /** Jobs still `running` on the engine ids that start with `prefix` (one engine's runs). */
  async findRunningOnEngine(prefix: string): Promise<RestoreJobRow[]> {
    return this.dataSource.query<RestoreJobRow[]>(
      `SELECT * FROM recovery.restore_jobs
        WHERE status = 'running' AND starts_with(engine_workflow_id, $1)
        ORDER BY created_at`,
      [prefix],
    );
  }

  /** Keeps a `running` job's wait for the next start (RestoreResume); false if the job has ended. */
  async leaveWaiting(jobId: string, resume: RestoreResume): Promise<boolean> {
    const [, count] = await this.dataSource.query<[unknown[], number]>(
      `UPDATE recovery.restore_jobs SET left_waiting = $2 WHERE id = $1 AND status = 'running'`,
      [jobId, JSON.stringify(resume)],
    );
    return count > 0;
  }

  /**
   * Takes a job's kept wait, once: the caller runs the job on from it, and a start that comes
   * after (another replica, or this process once the run is under way) finds nothing to take.
   */
  async takeLeftWaiting(jobId: string): Promise<RestoreResume | null> {
    const [[row]] = await this.dataSource.query<[{ resume: RestoreResume }[], number]>(
      `UPDATE recovery.restore_jobs j SET left_waiting = NULL
         FROM (SELECT id, left_waiting FROM recovery.restore_jobs WHERE id = $1 FOR UPDATE) old
        WHERE j.id = old.id AND j.status = 'running' AND old.left_waiting IS NOT NULL
        RETURNING old.left_waiting AS resume`,
      [jobId],
    );
    return row?.resume ?? null;
  }

  /**
   * docs/behaviour.md §4.2 rules 2 and 4 in one statement: the pending job and `RestoreStarted` together, or,
   * when the guild already has an active job (the partial unique index), that job. The conflict
   * arm locks the active job and returns it; if that job ends meanwhile, Postgres tries the insert
   * again, which then succeeds. So the answer is never "neither": concurrent starts end with
   * exactly one job, and every loser learns which.
   */
  async insertPending(job: NewRestoreJob): Promise<PendingJobInsert> {
    return this.dataSource.transaction(async (manager) => {
      const [row] = await manager.query<RestoreJobRow[]>(
        `INSERT INTO recovery.restore_jobs
           (id, guild_id, snapshot_id, requested_by_user, requested_by_platform_user_id, scope, options,
            status, preview_diff)
         VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', $8)
         ON CONFLICT (guild_id) WHERE ${ACTIVE}
           -- Changes nothing; it makes the statement lock and return the active job.
           DO UPDATE SET guild_id = EXCLUDED.guild_id
         RETURNING *`,
        [
          job.id,
          job.guildId,
          job.snapshotId,
          job.requestedByUser,
          job.requestedByPlatformUserId,
          job.scope,
          JSON.stringify(job.options),
          JSON.stringify(job.previewDiff),
        ],
      );
      if (row.id !== job.id) return { inserted: false, active: row };
      await this.events.restoreStarted(manager, job);
      return { inserted: true, job: row };
    });
  }

  /** The workflow started. A run fast enough to have ended already keeps its ending. */
  async markRunning(jobId: string, workflowId: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE recovery.restore_jobs
          SET status = CASE WHEN status = 'pending' THEN 'running' ELSE status END,
              engine_workflow_id = $2,
              started_at = COALESCE(started_at, now())
        WHERE id = $1`,
      [jobId, workflowId],
    );
  }

  async recordPreRestoreSnapshot(jobId: string, snapshotId: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE recovery.restore_jobs SET pre_restore_snapshot_id = $2 WHERE id = $1`,
      [jobId, snapshotId],
    );
  }

  async addWarning(jobId: string, warning: { code: string; message: string }): Promise<void> {
    await this.dataSource.query(
      `UPDATE recovery.restore_jobs SET warnings = warnings || $2::jsonb WHERE id = $1`,
      [jobId, JSON.stringify([warning])],
    );
  }

  /**
   * Keeps the address of a webhook the job made (or took over from an earlier attempt), under the
   * snapshot's webhook id: a retried or resumed step that makes it again replaces the entry.
   */
  async recordNewWebhook(jobId: string, webhook: NewWebhookAddress): Promise<void> {
    await this.dataSource.query(
      `UPDATE recovery.restore_jobs SET new_webhooks = new_webhooks || jsonb_build_object($2::text, $3::jsonb)
        WHERE id = $1`,
      [jobId, webhook.original_id, JSON.stringify(webhook)],
    );
  }

  /** Records when the user asked to cancel; only an active job takes it. */
  async requestCancel(jobId: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE recovery.restore_jobs SET cancel_requested_at = COALESCE(cancel_requested_at, now())
        WHERE id = $1 AND ${ACTIVE}`,
      [jobId],
    );
  }

  /** docs/behaviour.md §3.1 `running -> completed`: summary, end time and `RestoreCompleted`, once. */
  async complete(jobId: string, summary: RestoreResultSummary): Promise<void> {
    const ended = await this.dataSource.transaction(async (manager) => {
      const job = await endedRow(
        manager,
        END_ACTIVE_JOB(`status = 'completed', result_summary = $2, completed_at = now(),
                        started_at = COALESCE(restore_jobs.started_at, restore_jobs.created_at)`),
        [jobId, JSON.stringify(summary)],
      );
      if (!job) return null;
      await this.events.restoreCompleted(manager, job, summary);
      return job;
    });
    if (ended) {
      restoreJobsEnded.inc({ status: 'completed', code: 'completed' });
      restoreDuration.observe((ended.completed_at!.getTime() - ended.started_at!.getTime()) / 1000);
    }
  }

  /**
   * Failed, with `RestoreFailed`; or canceled, by the user or because the guild is gone, with
   * `RestoreCanceled`. Once: a job that has already ended is left as it is. The end is counted in
   * the metrics after the commit, so a rolled-back end is never counted.
   */
  async endUnsuccessfully(failure: RestoreFailure): Promise<boolean> {
    const ended = await this.dataSource.transaction(async (manager) => {
      const job = await endedRow(
        manager,
        END_ACTIVE_JOB(`status = $2, error_message = $3, completed_at = now()`),
        [
          failure.jobId,
          failure.status,
          failure.status === 'canceled' && failure.code === 'canceled' ? null : failure.message,
        ],
      );
      if (!job) return false;
      await this.events.restoreEndedUnsuccessfully(manager, job, failure);
      return true;
    });
    if (ended) restoreJobsEnded.inc({ status: failure.status, code: failure.code });
    return ended;
  }
}

/** TypeORM answers an UPDATE ... RETURNING on Postgres with `[rows, affected]`. */
async function endedRow(
  manager: EntityManager,
  sql: string,
  parameters: unknown[],
): Promise<EndedJobRow | undefined> {
  const [rows] = await manager.query<[EndedJobRow[], number]>(sql, parameters);
  return rows[0];
}
