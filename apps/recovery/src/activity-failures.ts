import { ApplicationFailure, Context } from '@temporalio/activity';
import { isChatPlatformError } from '@lib/chat-platform';
import { DomainError } from '@lib/problem-details';

/**
 * A failure as Temporal sees it: with its stable type (a platform or domain error's code, else
 * `Error`), non-retryable when the type is one of `nonRetryable` (what no retry can change).
 */
export function toApplicationFailure(error: unknown, nonRetryable: readonly string[]): ApplicationFailure {
  if (error instanceof ApplicationFailure) return error;
  const type = isChatPlatformError(error) || error instanceof DomainError ? error.code : 'Error';
  return ApplicationFailure.create({
    type,
    message: error instanceof Error ? error.message : String(error),
    nonRetryable: nonRetryable.includes(type),
    cause: error instanceof Error ? error : undefined,
  });
}

/**
 * The activities with each failure rethrown as toApplicationFailure makes it; with `heartbeatMs`,
 * each also heartbeats at that interval while it runs in a worker (outside one there is no context).
 */
export function withFailureTypes<Activities extends object>(
  activities: Activities,
  nonRetryable: readonly string[],
  heartbeatMs?: number,
): Activities {
  const wrapped: Record<string, unknown> = {};
  for (const [name, activity] of Object.entries(activities) as [
    string,
    (input: never) => Promise<unknown>,
  ][]) {
    wrapped[name] = async (input: never) => {
      const context = heartbeatMs === undefined ? undefined : activityContext();
      const heartbeat = context && setInterval(() => context.heartbeat(), heartbeatMs);
      try {
        return await activity(input);
      } catch (error) {
        throw toApplicationFailure(error, nonRetryable);
      } finally {
        clearInterval(heartbeat);
      }
    };
  }
  return wrapped as Activities;
}

/** The Temporal activity context, or undefined when the activities run outside a worker (standalone). */
function activityContext(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined;
  }
}
