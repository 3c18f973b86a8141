import { ApplicationFailure } from '@temporalio/activity';
// The conversion Temporal itself applies to ActivityOptions durations ('5 minutes', '1 second').
import { msToNumber } from '@temporalio/common/lib/time';
import type { ActivityOptions } from '@temporalio/workflow';

/** Waits `ms`; returns early when `signal` aborts (the caller looks at the signal). */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export interface InProcessActivityContext {
  /**
   * Aborted when the process stops: no new attempt starts and backoff waits end, with the
   * signal's reason thrown. The attempt running at that moment finishes.
   */
  signal?: AbortSignal;
  /** Activities that still run, retries included, after `signal` aborted: the endings of a run. */
  runsWhenStopped?: readonly string[];
  sleep?: Sleep;
  now?: () => number;
}

type Activity = (input: never) => Promise<unknown>;

/**
 * The activities as a Temporal worker would run them under `options`, for the in-process engine
 * (WORKFLOW_ENGINE=in-process): every call is retried by the options' retry policy (initial
 * interval, backoff coefficient, maximum interval, maximum attempts, non-retryable error types),
 * each attempt bounded by the start-to-close time-out and all of them by the schedule-to-close one.
 * `options` may differ per activity. When the policy gives up, the last attempt's error is thrown
 * as it is (Temporal would wrap it in an ActivityFailure; classifiers accept both).
 */
export function withActivityOptions<T extends object>(
  activities: T,
  options: ActivityOptions | ((name: string) => ActivityOptions),
  context: InProcessActivityContext = {},
): T {
  const wrapped: Record<string, unknown> = {};
  for (const [name, activity] of Object.entries(activities) as [string, Activity][]) {
    const policy = typeof options === 'function' ? options(name) : options;
    wrapped[name] = (input: never) => callActivity(name, () => activity(input), policy, context);
  }
  return wrapped as T;
}

/** One activity call under `options` (see withActivityOptions). */
export async function callActivity<T>(
  name: string,
  attempt: () => Promise<T>,
  options: ActivityOptions,
  context: InProcessActivityContext = {},
): Promise<T> {
  const { sleep = abortableSleep, now = Date.now } = context;
  const runsWhenStopped = context.runsWhenStopped?.includes(name) ?? false;
  const signal = runsWhenStopped ? undefined : context.signal;
  const retry = options.retry ?? {};
  const initialInterval = msToNumber(retry.initialInterval ?? '1 second');
  const coefficient = retry.backoffCoefficient ?? 2;
  // Temporal's defaults: 100 times the initial interval; 0 or unset attempts means no limit.
  const maximumInterval =
    retry.maximumInterval === undefined ? initialInterval * 100 : msToNumber(retry.maximumInterval);
  const maximumAttempts = retry.maximumAttempts ?? 0;
  const nonRetryable = retry.nonRetryableErrorTypes ?? [];
  const perAttempt =
    options.startToCloseTimeout === undefined ? Infinity : msToNumber(options.startToCloseTimeout);
  const deadline =
    options.scheduleToCloseTimeout === undefined
      ? Infinity
      : now() + msToNumber(options.scheduleToCloseTimeout);

  for (let number = 1; ; number++) {
    if (signal?.aborted) throw signal.reason;
    try {
      return await withTimeout(attempt(), Math.min(perAttempt, deadline - now()), name);
    } catch (error) {
      const exhausted = maximumAttempts > 0 && number >= maximumAttempts;
      if (exhausted || !isRetryable(error, nonRetryable)) throw error;
      const delay = Math.min(initialInterval * coefficient ** (number - 1), maximumInterval);
      if (now() + delay >= deadline) throw error;
      await sleep(delay, signal);
    }
  }
}

/** Temporal's rule: an ApplicationFailure marked non-retryable, or of a listed type, is not retried. */
export function isRetryable(error: unknown, nonRetryableTypes: readonly string[]): boolean {
  if (error instanceof ApplicationFailure && error.nonRetryable) return false;
  return !nonRetryableTypes.includes(failureType(error));
}

/** The type Temporal gives a failure: an ApplicationFailure's own, otherwise the error's name. */
export function failureType(error: unknown): string {
  if (error instanceof ApplicationFailure) return error.type ?? 'Error';
  return error instanceof Error ? error.name : 'Error';
}

/**
 * Like Temporal, a timed-out attempt is not stopped: it goes on in the background while the next
 * attempt runs. Activities are idempotent and re-read what they change, which makes that safe.
 */
function withTimeout<T>(work: Promise<T>, timeoutMs: number, name: string): Promise<T> {
  if (!Number.isFinite(timeoutMs)) return work;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          ApplicationFailure.retryable(`${name} did not finish within ${timeoutMs} ms`, 'ActivityTimeout'),
        ),
      Math.max(0, timeoutMs),
    );
  });
  work.catch(() => undefined);
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
