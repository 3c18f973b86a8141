import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { RESTORE_ACTIVITIES } from '../../restore/activities/restore.activities';
import {
  failStoppedRestore,
  IN_PROCESS_RESTORE_PREFIX,
  InProcessRestoreRun,
  inProcessRestoreActivities,
  inProcessRestoreWorkflowId,
  jobIdOfInProcessRestore,
  serviceStopped,
} from './in-process-restore-run';
import { InProcessEngineAdapter } from './in-process-engine-adapter';
import { changesPerStep } from '../../restore/restore-diff';
import { type RestoreJobRow, RestoreJobsRepository } from '../../restore/restore-jobs.repository';
import type { RestoreRunner } from '../../restore/restore-runner';
import type {
  ProgressSummary,
  RestoreActivities,
  RestoreResume,
  RestoreWorkflowInput,
} from '../../restore/workflows/restore-contract';

/**
 * Restores run by this process (WORKFLOW_ENGINE=in-process, standalone mode): the restore
 * procedure with the same retry policy, progress and cancel as on Temporal, but not durable.
 *
 * - A run's engine workflow id is `in-process-restore-<job id>`, written before the run touches
 *   the guild. At start, every job still `running` under such an id and not run here is a run the
 *   previous process left behind: it ends `failed` (SERVICE_STOPPED_MESSAGE) through the same
 *   activities as any failed run, so live sync resumes and RestoreFailed is written.
 * - At shutdown no new run starts; each run's current activity finishes, the next one is refused,
 *   and the run ends `failed` with the same message right away. A run still busy after
 *   SHUTDOWN_GRACE_MS is left to the next start.
 * - Except a run waiting for the platform (a creation quota can take 48 hours, longer than any
 *   deploy should fail a restore for): its wait, progress and counts are kept on the job
 *   (`left_waiting`), the job stays `running`, and the next start takes the run up from there:
 *   it sleeps out what is left of the wait, then calls the steps again, which do only what is left.
 *
 * One process per database: a second one would take the first one's runs for leftovers.
 */
@Injectable()
export class InProcessRestoreRunner
  extends InProcessEngineAdapter<InProcessRestoreRun>
  implements RestoreRunner, OnApplicationBootstrap, BeforeApplicationShutdown
{
  private readonly stopping = new AbortController();
  private readonly endings: RestoreActivities;
  private sweep: Promise<void> | undefined;
  /** When this process began: a job created before it and never started is a predecessor's. */
  private bootedAt = new Date();

  constructor(
    @Inject(RESTORE_ACTIVITIES) private readonly activities: RestoreActivities,
    private readonly jobs: RestoreJobsRepository,
  ) {
    super();
    this.endings = inProcessRestoreActivities(activities, { stop: this.stopping.signal });
  }

  onApplicationBootstrap(): void {
    this.bootedAt = new Date();
    this.sweep = this.failLeftovers().catch((error: unknown) =>
      this.logger.error({ err: error }, 'restores left running by the previous process could not be ended'),
    );
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping.abort(serviceStopped());
    // A run not begun yet (its start still recording the id) is begun and runs to its ending; a
    // run waiting for the platform is done once its wait is kept for the next start.
    const runs = [...this.runs.values()].map((run) => run.stopped());
    const inTime = await this.settledBeforeShutdown([...runs, this.sweep ?? Promise.resolve()]);
    if (!inTime) {
      this.logger.warn(
        { restore_job_ids: [...this.runs.values()].map((run) => run.jobId) },
        'restores still running at shutdown; the next start ends them failed',
      );
    }
  }

  start(input: RestoreWorkflowInput): Promise<string> {
    if (this.stopping.signal.aborted) {
      return Promise.reject(new Error('the service is stopping; no restore starts now'));
    }
    return Promise.resolve(this.run(input));
  }

  /** Runs `input` in this process; its engine workflow id. */
  private run(input: RestoreWorkflowInput): string {
    const workflowId = inProcessRestoreWorkflowId(input.jobId);
    const run = new InProcessRestoreRun(input, this.activities, {
      stop: this.stopping.signal,
      handBack: (resume) => this.leaveWaiting(input.jobId, resume),
    });
    // Known as ours before the job says so: the start-up sweep never takes a live run for a leftover.
    this.runs.set(workflowId, run);
    // RestoreService records the id on the job (markRunning) as soon as this resolves; the run's
    // first activity only reads (validateSnapshot), so the id is on the job before the guild changes.
    run
      .begin()
      .then(
        (outcome) => this.logger.log({ restore_job_id: input.jobId, outcome }, 'restore run ended'),
        (error: unknown) =>
          this.logger.error(
            { err: error, restore_job_id: input.jobId },
            'restore run could not record its ending; the next start ends it failed',
          ),
      )
      .finally(() => this.runs.delete(workflowId));
    return workflowId;
  }

  private async leaveWaiting(jobId: string, resume: RestoreResume): Promise<void> {
    try {
      if (!(await this.jobs.leaveWaiting(jobId, resume))) throw new Error('the restore job has ended');
    } catch (error) {
      this.logger.error(
        { err: error, restore_job_id: jobId },
        'restore wait could not be kept for the next start',
      );
      throw error;
    }
    this.logger.log(
      { restore_job_id: jobId, waiting: resume.waiting },
      'restore waiting; the next start takes it up',
    );
  }

  /** Takes up, from its kept wait, a run the previous process left waiting for the platform. */
  private resume(job: RestoreJobRow, resume: RestoreResume): void {
    this.logger.log({ restore_job_id: job.id, waiting: resume.waiting }, 'restore taken up where it waited');
    this.run({
      jobId: job.id,
      scope: job.scope,
      createPreRestoreSnapshot: job.options.create_pre_restore_snapshot,
      totals: changesPerStep(job.preview_diff),
      resume,
    });
  }

  /** A job marked as run here but with no run (its process stopped) ends failed now. */
  async cancel(workflowId: string): Promise<void> {
    const run = this.runs.get(workflowId);
    if (run) {
      run.cancel();
      return;
    }
    const jobId = jobIdOfInProcessRestore(workflowId);
    if (!jobId) throw new Error(`restore ${workflowId} is not run by the in-process engine`);
    await failStoppedRestore({ jobId }, this.endings);
  }

  progress(workflowId: string): Promise<ProgressSummary | null> {
    return Promise.resolve(this.runs.get(workflowId)?.progressSummary() ?? null);
  }

  /** Leftovers a kept wait takes up again; every other one ends failed. */
  private async failLeftovers(): Promise<void> {
    // Running on this engine when the previous process stopped, or never started at all: the
    // service records the run's id just after the start, and a process can stop in between.
    const leftovers = [
      ...(await this.jobs.findRunningOnEngine(IN_PROCESS_RESTORE_PREFIX)),
      ...(await this.jobs.findNeverStarted(this.bootedAt)),
    ];
    for (const job of leftovers) {
      if (this.stopping.signal.aborted) return;
      if (job.engine_workflow_id && this.runs.has(job.engine_workflow_id)) continue;
      const resume = job.status === 'running' ? await this.jobs.takeLeftWaiting(job.id) : null;
      if (resume) {
        this.resume(job, resume);
        continue;
      }
      this.logger.warn(
        { restore_job_id: job.id, guild_id: job.guild_id },
        'restore left running by the previous process; ending it failed',
      );
      await failStoppedRestore({ jobId: job.id }, this.endings).catch((error: unknown) =>
        this.logger.error({ err: error, restore_job_id: job.id }, 'leftover restore could not be ended'),
      );
    }
  }
}
