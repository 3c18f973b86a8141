import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import type { JobRef, RestoreFailure } from './restore-contract';

/**
 * docs/behaviour.md §3.1: the guild gone from the platform cancels the job; anything else fails it with the
 * failure's type. Deterministic, for the Temporal workflow (where an activity's failure arrives
 * wrapped in an ActivityFailure) and the in-process runner (where it arrives as thrown).
 */
export function classifyRestoreFailure(error: unknown, ref: JobRef): RestoreFailure {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  const type = cause instanceof ApplicationFailure ? (cause.type ?? 'Error') : 'Error';
  if (type === 'GuildNotFound') {
    return { ...ref, status: 'canceled', code: 'guild_deleted', message: 'guild deleted' };
  }
  const message = cause instanceof Error ? cause.message : String(error);
  return { ...ref, status: 'failed', code: type, message };
}
