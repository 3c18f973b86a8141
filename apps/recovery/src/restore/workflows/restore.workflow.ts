import {
  CancellationScope,
  condition,
  defineQuery,
  defineSignal,
  patched,
  proxyActivities,
  setHandler,
} from '@temporalio/workflow';
import {
  CANCEL_RESTORE_SIGNAL,
  FIRST_OVERLAPPED_PHASES,
  OVERLAPPED_PHASES,
  type ProgressSummary,
  RESTORE_PROGRESS_QUERY,
  type RestoreActivities,
  type RestoreWorkflowInput,
  type StepPhases,
} from './restore-contract';
import { classifyRestoreFailure } from './restore-failure';
import { RESTORE_ACTIVITY_OPTIONS } from './restore-policy';
import { type RestoreOutcome, runRestore } from './restore-procedure';
import { RestoreProgress } from './restore-progress';

export const cancelRestoreSignal = defineSignal(CANCEL_RESTORE_SIGNAL);
export const restoreProgressQuery = defineQuery<ProgressSummary>(RESTORE_PROGRESS_QUERY);

const activities = proxyActivities<RestoreActivities>(RESTORE_ACTIVITY_OPTIONS);

/** The change from one step at a time to the overlapped phases (Temporal's patching). */
export const OVERLAPPED_STEPS_PATCH = 'restore-overlapped-steps';
/** The overwrite deletes moved beside the creates (OVERLAPPED_PHASES). */
export const OVERWRITE_DELETES_BESIDE_CREATES_PATCH = 'restore-overwrite-deletes-beside-creates';

/** The phases of the build the run began on: a run replays the way it ran. */
function phasesOfThisRun(): StepPhases | undefined {
  if (patched(OVERWRITE_DELETES_BESIDE_CREATES_PATCH)) return OVERLAPPED_PHASES;
  if (patched(OVERLAPPED_STEPS_PATCH)) return FIRST_OVERLAPPED_PHASES;
  return undefined;
}

/** The restore procedure on Temporal: signal `cancel`, query `getProgress`. */
export async function restoreWorkflow(input: RestoreWorkflowInput): Promise<RestoreOutcome> {
  let cancelRequested = false;
  const progress = new RestoreProgress(input.totals);
  setHandler(cancelRestoreSignal, () => {
    cancelRequested = true;
  });
  setHandler(restoreProgressQuery, () => progress.summary());

  return runRestore(
    input,
    {
      activities,
      cancelRequested: () => cancelRequested,
      // A durable timer in the workflow's history: no activity is held, a worker restart resumes
      // it, and the cancel signal ends it. Date.now() is the workflow's own (deterministic) time.
      sleepUntil: async (until) => {
        const ms = Date.parse(until) - Date.now();
        if (ms > 0) await condition(() => cancelRequested, ms);
      },
      classify: classifyRestoreFailure,
      shielded: (work) => CancellationScope.nonCancellable(work),
      phases: phasesOfThisRun(),
    },
    progress,
  );
}
