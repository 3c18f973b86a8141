import type { SchedulerRegistry } from '@nestjs/schedule';

/**
 * Spec helpers for the owners of a RetryTimer (live sync's gateway connection, the Temporal
 * worker's start, the outbox relay's rounds and LISTEN), under Jest's fake timers. Specs import
 * them from test/support.
 */

/** A retry waits on `scheduler` as `name`: a spec's SchedulerRegistry and a RetryTimer's name. */
export interface WaitingRetry {
  scheduler: SchedulerRegistry;
  name: string;
}

/**
 * Steps fake time through a back-off, one delay after another. Before each delay the retry waits
 * as `waiting` says; a millisecond short of the delay `tries` (how many tries so far) has not
 * moved, at the delay it has moved by one.
 */
export async function expectRetriesAfter(
  waiting: WaitingRetry,
  tries: () => number,
  delaysMs: readonly number[],
): Promise<void> {
  for (const delayMs of delaysMs) {
    const before = tries();
    expect(waiting.scheduler.getTimeouts()).toContain(waiting.name);
    await jest.advanceTimersByTimeAsync(delayMs - 1);
    expect(tries()).toBe(before);
    await jest.advanceTimersByTimeAsync(1);
    expect(tries()).toBe(before + 1);
  }
}

/**
 * Stops the owner with `stop`, then checks that no timeout is left on `scheduler` and that no
 * further try comes, however long the fake clock runs on (two minutes, past every back-off here).
 */
export async function expectNoRetryAfterStop(
  stop: () => Promise<void>,
  scheduler: SchedulerRegistry,
  tries: () => number,
): Promise<void> {
  await stop();
  expect(scheduler.getTimeouts()).toEqual([]);
  const before = tries();
  await jest.advanceTimersByTimeAsync(120_000);
  expect(tries()).toBe(before);
}
