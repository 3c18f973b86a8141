import type { RestoreResultSummary } from '@lib/contracts';
import { ApplicationFailure } from '@temporalio/activity';
import type { ActivityOptions } from '@temporalio/workflow';
import { type Sleep, withActivityOptions } from './in-process-activities';
import {
  type JobRef,
  OVERLAPPED_PHASES,
  type ProgressSummary,
  type RestoreActivities,
  type RestoreResume,
  type RestoreWorkflowInput,
} from '../../restore/workflows/restore-contract';
import { classifyRestoreFailure } from '../../restore/workflows/restore-failure';
import { RESTORE_ACTIVITY_OPTIONS } from '../../restore/workflows/restore-policy';
import { type RestoreOutcome, runRestore } from '../../restore/workflows/restore-procedure';
import { RestoreProgress } from '../../restore/workflows/restore-progress';

/** Engine workflow ids of restores run in process; the next start knows them as its own. */
export const IN_PROCESS_RESTORE_PREFIX = 'in-process-restore-';

export function inProcessRestoreWorkflowId(jobId: string): string {
  return `${IN_PROCESS_RESTORE_PREFIX}${jobId}`;
}

/** The job of an in-process workflow id, or null for any other (a Temporal one). */
export function jobIdOfInProcessRestore(workflowId: string): string | null {
  return workflowId.startsWith(IN_PROCESS_RESTORE_PREFIX)
    ? workflowId.slice(IN_PROCESS_RESTORE_PREFIX.length)
    : null;
}

export const SERVICE_STOPPED = 'ServiceStopped';
export const SERVICE_STOPPED_MESSAGE =
  'The service stopped while this restore was running; the guild may be partly restored. Preview it again and start a new restore.';

/** Why a run stopped between two activities: the process is shutting down. */
export function serviceStopped(): ApplicationFailure {
  return ApplicationFailure.nonRetryable(SERVICE_STOPPED_MESSAGE, SERVICE_STOPPED);
}

/** What ends a run: these still run (and retry) while the process stops, as Temporal's nonCancellable does. */
const ENDING_ACTIVITIES: readonly (keyof RestoreActivities)[] = [
  'resumeLiveSync',
  'completeRestore',
  'endRestoreUnsuccessfully',
];

export interface InProcessRestoreOptions {
  /** Aborted with serviceStopped() at shutdown: the current activity finishes, no later step starts. */
  stop?: AbortSignal;
  /** RESTORE_ACTIVITY_OPTIONS unless a test says otherwise. */
  policy?: ActivityOptions;
  sleep?: Sleep;
  /**
   * Keeps a wait for the platform that the stop cuts short (RestoreResume) for the next start.
   * Without it, or when it fails, the run ends failed (SERVICE_STOPPED) as any run a stop cuts.
   */
  handBack?: (resume: RestoreResume) => Promise<void>;
}

/** The activities as a restore run calls them in process: the restore policy on every call. */
export function inProcessRestoreActivities(
  activities: RestoreActivities,
  options: InProcessRestoreOptions = {},
): RestoreActivities {
  return withActivityOptions(activities, options.policy ?? RESTORE_ACTIVITY_OPTIONS, {
    signal: options.stop,
    runsWhenStopped: ENDING_ACTIVITIES,
    sleep: options.sleep,
  });
}

/**
 * One restore run without Temporal (WORKFLOW_ENGINE=in-process): the same procedure as
 * restore.workflow.ts, with the same failure classification, a cancel flag checked between
 * activities, and the progress the `getProgress` query would answer. `begin()` starts it.
 */
export class InProcessRestoreRun {
  private canceled = false;
  /** Ends the current wait for the platform (sleepUntil) early: a cancel, or the process stopping. */
  private readonly wake = new Set<() => void>();
  private readonly progress: RestoreProgress;
  private readonly activities: RestoreActivities;
  private running: Promise<RestoreOutcome> | undefined;
  /** The hand-back of the run's wait (at most one, whichever waiting step a stop meets first). */
  private handedBack: Promise<boolean> | undefined;
  private markKept: () => void = () => undefined;
  /** Resolves once a stop met the run waiting and its wait was kept for the next start. */
  private readonly kept = new Promise<void>((resolve) => (this.markKept = resolve));

  constructor(
    private readonly input: RestoreWorkflowInput,
    activities: RestoreActivities,
    private readonly options: InProcessRestoreOptions = {},
  ) {
    this.progress = new RestoreProgress(input.totals);
    this.activities = inProcessRestoreActivities(activities, options);
  }

  get jobId(): string {
    return this.input.jobId;
  }

  /** Runs the restore; resolves with how it ended (rejects only when even its ending failed). */
  begin(): Promise<RestoreOutcome> {
    this.running ??= runRestore(
      this.input,
      {
        activities: this.activities,
        cancelRequested: () => this.canceled,
        sleepUntil: (until, summary) => this.sleepUntil(until, summary),
        classify: classifyRestoreFailure,
        // The endings run even while the process stops (ENDING_ACTIVITIES); nothing else to shield.
        shielded: (work) => work(),
        phases: OVERLAPPED_PHASES,
      },
      this.progress,
    );
    return this.running;
  }

  /**
   * Settles when the run no longer needs this process: it ended, or a stop met it waiting for the
   * platform and its wait was handed to the next start (the run is then left where it is).
   */
  stopped(): Promise<unknown> {
    return Promise.race([this.begin().catch(() => undefined), this.kept]);
  }

  /** The `cancel` signal: the running activity finishes, later steps are skipped. */
  cancel(): void {
    this.canceled = true;
    for (const wake of this.wake) wake();
  }

  /**
   * A timer in this process. A wait can last two days, so a stopping process (a deploy) keeps it
   * for the next start (handBack) and leaves the run as it is, never resolving the wait: the job
   * stays `running` and the next start takes it up (InProcessRestoreRunner). Without a
   * handBack, or if it fails, the wait ends at once, the next activity is refused and the run ends
   * failed (SERVICE_STOPPED), as any run cut short by a stop does.
   */
  private sleepUntil(until: string, summary: RestoreResultSummary): Promise<void> {
    const ms = Date.parse(until) - Date.now();
    if (ms <= 0 || this.canceled) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake.delete(done);
        this.options.stop?.removeEventListener('abort', stopped);
        resolve();
      };
      const stopped = () => {
        clearTimeout(timer);
        this.wake.delete(done);
        void this.keepForNextStart(summary).then((kept) => (kept ? undefined : resolve()));
      };
      const timer = setTimeout(done, ms);
      this.wake.add(done);
      if (this.options.stop?.aborted) stopped();
      else this.options.stop?.addEventListener('abort', stopped, { once: true });
    });
  }

  /**
   * Hands the run's wait to the next start; false when there is no one to hand it to or the
   * hand-back failed. Steps waiting side by side share the one hand-back: it records the earliest
   * wait, and the others call their step again after it (the platform tells them to wait again).
   */
  private keepForNextStart(summary: RestoreResultSummary): Promise<boolean> {
    const { handBack } = this.options;
    const progress = this.progress.summary();
    if (!handBack || !progress.waiting) return Promise.resolve(false);
    this.handedBack ??= handBack({ waiting: progress.waiting, progress, summary: { ...summary } }).then(
      () => {
        this.markKept();
        return true;
      },
      () => false,
    );
    return this.handedBack;
  }

  /** The `getProgress` query. */
  progressSummary(): ProgressSummary {
    return this.progress.summary();
  }
}

/**
 * Ends a job whose run is gone (the process stopped mid-run) the way a failed run ends: live sync
 * resumed for the guild, then the job `failed` with SERVICE_STOPPED_MESSAGE and RestoreFailed.
 * `activities` come from inProcessRestoreActivities (policy applied).
 */
export async function failStoppedRestore(ref: JobRef, activities: RestoreActivities): Promise<void> {
  let resumeError: Error | undefined;
  try {
    await activities.resumeLiveSync(ref);
  } catch (error) {
    resumeError = error instanceof Error ? error : new Error(String(error));
  }
  await activities.endRestoreUnsuccessfully({
    ...ref,
    status: 'failed',
    code: SERVICE_STOPPED,
    message: SERVICE_STOPPED_MESSAGE,
  });
  if (resumeError) throw resumeError;
}
