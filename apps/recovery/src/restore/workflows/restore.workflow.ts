import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  defineQuery,
  defineSignal,
  proxyActivities,
  setHandler,
} from '@temporalio/workflow';
import {
  CANCEL_RESTORE_SIGNAL,
  type JobRef,
  type ProgressSummary,
  RESTORE_PROGRESS_QUERY,
  type RestoreActivities,
  type RestoreFailure,
  type RestoreWorkflowInput,
} from './restore-contract';
import { RESTORE_ACTIVITY_OPTIONS } from './restore-policy';
import { type RestoreOutcome, runRestore } from './restore-procedure';
import { RestoreProgress } from './restore-progress';

export const cancelRestoreSignal = defineSignal(CANCEL_RESTORE_SIGNAL);
export const restoreProgressQuery = defineQuery<ProgressSummary>(RESTORE_PROGRESS_QUERY);

const activities = proxyActivities<RestoreActivities>(RESTORE_ACTIVITY_OPTIONS);

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
      classify,
      shielded: (work) => CancellationScope.nonCancellable(work),
    },
    progress,
  );
}

/** Spec §3.1: the guild gone from the platform cancels the job; anything else fails it. */
function classify(error: unknown, ref: JobRef): RestoreFailure {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  const type = cause instanceof ApplicationFailure ? (cause.type ?? 'Error') : 'Error';
  if (type === 'GuildNotFound') {
    return { ...ref, status: 'canceled', code: 'guild_deleted', message: 'guild deleted' };
  }
  const message = cause instanceof Error ? cause.message : String(error);
  return { ...ref, status: 'failed', code: type, message };
}
