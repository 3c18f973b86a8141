import type { RestoreResultSummary } from '@lib/contracts';
import {
  CHANGE_STEPS,
  type ChangeStep,
  type JobRef,
  type RestoreActivities,
  type RestoreFailure,
  type RestoreResume,
  type RestoreWorkflowInput,
  STEP_ACTIVITY,
  STEP_DEPENDS_ON,
  STEP_SCOPE,
  type StepOutcome,
  type StepPhases,
} from './restore-contract';
import type { RestoreProgress } from './restore-progress';
import { describeStep, type OutcomeCount, type SummaryCounter } from '../steps/change-steps';

/**
 * What the engine hosting a run gives the procedure (Temporal, or the in-process engine): the
 * service starts runs through RestoreRunner, and each run gets its engine's RestoreRunHost.
 */
export interface RestoreRunHost {
  activities: RestoreActivities;
  /** The user asked to cancel: the current activity finishes, later steps are skipped. */
  cancelRequested(): boolean;
  /** Turns an activity's failure into how the job ends (e.g. GuildNotFound -> canceled). */
  classify(error: unknown, ref: JobRef): RestoreFailure;
  /**
   * Waits until the time (ISO 8601) or until cancel is requested, whichever comes first: a durable
   * timer on Temporal, so a wait of hours holds no activity and survives a worker restart.
   * `summary`: the counts so far, what an engine that hands the wait over to its next start keeps.
   */
  sleepUntil(until: string, summary: RestoreResultSummary): Promise<void>;
  /** Runs cleanup that must happen even if the run itself is being torn down. */
  shielded<T>(work: () => Promise<T>): Promise<T>;
  /**
   * The change steps run side by side, phase by phase (OVERLAPPED_PHASES), rather than one after
   * another when absent. The Temporal workflow gives the phases of the build a run began on, so
   * it replays the way it ran.
   */
  phases?: StepPhases;
}

export type RestoreOutcome = 'completed' | 'failed' | 'canceled';

/**
 * The spec's restore order (appendix), as plain deterministic code: validate, optional
 * pre-restore snapshot, pause live sync, deletes in reverse dependency order, then creates and
 * updates forward, then finalise. Live sync is resumed on every exit path.
 */
export async function runRestore(
  input: RestoreWorkflowInput,
  host: RestoreRunHost,
  progress: RestoreProgress,
): Promise<RestoreOutcome> {
  const ref: JobRef = { jobId: input.jobId };
  const { activities } = host;
  const { resume } = input;
  const summary = resume ? { ...resume.summary } : emptySummary();
  if (resume) progress.carryOver(resume.progress);
  let ending: RestoreFailure | null = null;

  try {
    progress.start('ValidateSnapshot');
    await activities.validateSnapshot(ref);
    progress.finish('ValidateSnapshot');

    if (input.createPreRestoreSnapshot && resume) {
      // Taken by the run this one resumes, before it reached the steps.
      progress.finish('CreatePreRestoreSnapshot');
    } else if (input.createPreRestoreSnapshot) {
      progress.start('CreatePreRestoreSnapshot');
      // docs/behaviour.md §7.3: its failure does not stop the restore. The activity records the warning
      // itself; an activity that could not even do that is passed over all the same.
      await activities.createPreRestoreSnapshot(ref).catch(() => null);
      progress.finish('CreatePreRestoreSnapshot');
    } else {
      progress.skip('CreatePreRestoreSnapshot');
    }

    progress.start('PauseLiveSync');
    await activities.pauseLiveSync(ref);
    progress.finish('PauseLiveSync');

    if (host.phases) {
      for (const phase of host.phases) {
        const wanted = phase.filter((step) => input.scope.includes(STEP_SCOPE[step]));
        for (const step of phase) if (!wanted.includes(step)) progress.skip(step);
        if (wanted.length === 0) continue;
        if (host.cancelRequested()) break;
        await runPhase(wanted, ref, host, progress, summary, resume?.waiting);
      }
    } else {
      for (const step of CHANGE_STEPS) {
        if (!input.scope.includes(STEP_SCOPE[step])) {
          progress.skip(step);
          continue;
        }
        if (host.cancelRequested()) break;
        await runStep(step, ref, host, progress, summary, resume?.waiting);
      }
    }
  } catch (error) {
    ending = host.classify(error, ref);
  }

  try {
    await host.shielded(() => activities.resumeLiveSync(ref));
  } catch (error) {
    ending ??= host.classify(error, ref);
  }

  if (!ending && host.cancelRequested()) {
    ending = { ...ref, status: 'canceled', code: 'canceled', message: 'Canceled by the user.' };
  }
  if (ending) {
    progress.end(ending.status);
    const failure = ending;
    await host.shielded(() => activities.endRestoreUnsuccessfully(failure));
    return ending.status;
  }
  await activities.completeRestore({ ...ref, summary });
  return 'completed';
}

/**
 * The steps of a phase side by side. A step tells the platform client what it waits for (the
 * steps of `STEP_DEPENDS_ON` still running); once one step fails, the others stop after their
 * current call, and the phase fails with the first failure.
 */
async function runPhase(
  steps: ChangeStep[],
  ref: JobRef,
  host: RestoreRunHost,
  progress: RestoreProgress,
  summary: RestoreResultSummary,
  resumed?: RestoreResume['waiting'],
): Promise<void> {
  const running = new Set(steps);
  /** Each step's run, settled either way: what a step waiting for it awaits. */
  const ended = new Map<ChangeStep, Promise<unknown>>();
  let failed = false;
  const runs = steps.map(async (step) => {
    try {
      await runStep(step, ref, host, progress, summary, resumed, {
        awaiting: () => (STEP_DEPENDS_ON[step] ?? []).filter((other) => running.has(other)),
        anyEnded: (others) => Promise.race(others.map((other) => ended.get(other) ?? Promise.resolve())),
        halted: () => failed,
      });
    } catch (error) {
      failed = true;
      throw error;
    } finally {
      running.delete(step);
    }
  });
  steps.forEach((step, i) =>
    ended.set(
      step,
      runs[i].catch(() => undefined),
    ),
  );
  const settled = await Promise.allSettled(runs);
  const failure = settled.find((result) => result.status === 'rejected');
  if (failure) throw failure.reason;
}

interface SideBySide {
  /** The steps this one waits for that are still running. */
  awaiting(): ChangeStep[];
  /** Resolves when the first of `steps` has ended (done, stopped or failed). */
  anyEnded(steps: ChangeStep[]): Promise<unknown>;
  /** A step beside this one failed: stop after the current call. */
  halted(): boolean;
}

/** A step works in batches (each re-reads the guild), so progress moves and cancel is timely. */
async function runStep(
  step: ChangeStep,
  ref: JobRef,
  host: RestoreRunHost,
  progress: RestoreProgress,
  summary: RestoreResultSummary,
  resumed?: RestoreResume['waiting'],
  side?: SideBySide,
): Promise<void> {
  progress.start(step);
  if (resumed?.step === step) {
    // The wait the resumed run stopped in: out first, then the step goes on as after any wait.
    progress.wait(step, { reason: resumed.reason, until: resumed.until });
    await host.sleepUntil(resumed.until, summary);
    progress.resume(step);
    if (host.cancelRequested()) return;
  }
  let outcome: StepOutcome;
  do {
    const awaiting = side?.awaiting() ?? [];
    outcome = await host.activities[STEP_ACTIVITY[step]]({
      ...ref,
      ...(awaiting.length > 0 && { awaiting }),
    });
    progress.advance(step, outcome);
    count(summary, step, outcome);
    if (outcome.pause) {
      // The platform takes no more of this step's requests until then (a creation quota, a
      // channel's edit limit): wait without an activity, then call the step again, which re-reads
      // the guild and goes on where it stopped. A cancel ends the wait at once.
      progress.wait(step, outcome.pause);
      await host.sleepUntil(outcome.pause.until, summary);
      progress.resume(step);
      continue;
    }
    const stalled = outcome.created + outcome.updated + outcome.deleted === 0;
    if (side && outcome.remaining > 0 && awaiting.length > 0 && (stalled || outcome.waiting)) {
      // Nothing more could be done without the steps it waits for: until one of them has ended,
      // asking again would mostly find the same (every call re-reads the guild, and the bot's
      // global limit is shared by every guild being restored). A failure beside it ends them too.
      await side.anyEnded(awaiting);
    }
  } while (outcome.remaining > 0 && !host.cancelRequested() && !side?.halted());
  // A step stopped because another failed stays running: the run's ending marks it.
  if (side?.halted()) return;
  progress.finish(step);
}

/** The summary before any step ran: every counter of the steps counted even when not run, at 0. */
function emptySummary(): RestoreResultSummary {
  const summary: Partial<RestoreResultSummary> = { skipped: 0 };
  for (const step of CHANGE_STEPS) {
    const { counts, countedOnlyWhenRun } = describeStep(step);
    if (countedOnlyWhenRun) continue;
    for (const counter of Object.values(counts)) summary[counter] = 0;
  }
  return summary as RestoreResultSummary;
}

/** Adds a call's counts to the summary's counters (CHANGE_STEP_TABLE's `counts`). */
function count(summary: RestoreResultSummary, step: ChangeStep, outcome: StepOutcome): void {
  for (const [field, counter] of Object.entries(describeStep(step).counts) as [
    OutcomeCount,
    SummaryCounter,
  ][]) {
    summary[counter] = (summary[counter] ?? 0) + (outcome[field] ?? 0);
  }
}
