import { ApplicationFailure } from '@temporalio/activity';
import type { ActivityOptions } from '@temporalio/workflow';
import { RESTORE_ACTIVITY_OPTIONS } from '../../restore/workflows/restore-policy';
import { callActivity, failureType, isRetryable, withActivityOptions } from './in-process-activities';

/** The policy the in-process engine runs restores with, as Temporal would: 1 s doubling to 1 minute, 10 attempts. */
const POLICY = RESTORE_ACTIVITY_OPTIONS;

/** Records the backoff waits instead of waiting; a fake clock moves by them. */
function fakeTime() {
  const waits: number[] = [];
  let clock = 0;
  return {
    waits,
    now: () => clock,
    sleep: (ms: number) => {
      waits.push(ms);
      clock += ms;
      return Promise.resolve();
    },
  };
}

/** An attempt that fails with `errors` in turn, then answers `result`. */
function flaky<T>(errors: Error[], result: T) {
  const calls = { count: 0 };
  const attempt = () => {
    const error = errors[calls.count++];
    return error === undefined ? Promise.resolve(result) : Promise.reject(error);
  };
  return { calls, attempt };
}

describe(callActivity.name, () => {
  it('retries a retryable failure with the backoff of the policy until an attempt succeeds', async () => {
    const time = fakeTime();
    const { calls, attempt } = flaky(
      [new Error('socket hang up'), ApplicationFailure.retryable('503')],
      'ok',
    );
    await expect(callActivity('step', attempt, POLICY, time)).resolves.toBe('ok');
    expect(calls.count).toBe(3);
    expect(time.waits).toEqual([1_000, 2_000]);
  });

  it('stops at once on a non-retryable type or a failure marked non-retryable', async () => {
    for (const error of [
      ApplicationFailure.retryable('Missing Permissions', 'PermissionDenied'),
      ApplicationFailure.nonRetryable('gone', 'Whatever'),
    ]) {
      const time = fakeTime();
      const { calls, attempt } = flaky([error], 'never');
      await expect(callActivity('step', attempt, POLICY, time)).rejects.toBe(error);
      expect([calls.count, time.waits]).toEqual([1, []]);
    }
  });

  it('gives up after the maximum attempts with the last failure, the waits capped at the maximum interval', async () => {
    const time = fakeTime();
    const errors = Array.from({ length: 10 }, (_, i) => ApplicationFailure.retryable(`outage ${i + 1}`));
    const { calls, attempt } = flaky(errors, 'never');
    await expect(callActivity('step', attempt, POLICY, time)).rejects.toBe(errors[9]);
    expect(calls.count).toBe(10);
    expect(time.waits).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000]);
  });

  it('retries without a limit when the policy sets none, until the schedule-to-close time-out', async () => {
    const time = fakeTime();
    const errors = Array.from({ length: 100 }, () => new Error('database down'));
    const { calls, attempt } = flaky(errors, 'never');
    const policy: ActivityOptions = {
      scheduleToCloseTimeout: '1 minute',
      retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 seconds' },
    };
    await expect(callActivity('step', attempt, policy, time)).rejects.toThrow('database down');
    // 1 + 2 + 4 + 5 * 10 = 57 s of waits; the next 5 s would pass the minute.
    expect(time.waits).toEqual([1_000, 2_000, 4_000, ...Array.from({ length: 10 }, () => 5_000)]);
    expect(calls.count).toBe(14);
  });

  it('times an attempt out after the start-to-close time-out and tries again', async () => {
    let calls = 0;
    const attempt = () => {
      calls++;
      return calls === 1 ? new Promise<string>(() => undefined) : Promise.resolve('second');
    };
    const policy: ActivityOptions = { ...POLICY, startToCloseTimeout: 20 };
    await expect(callActivity('step', attempt, policy, { sleep: () => Promise.resolve() })).resolves.toBe(
      'second',
    );
    expect(calls).toBe(2);
  });

  it('starts no attempt once the stop signal is given, except for the activities that end a run', async () => {
    const stop = new AbortController();
    const stopped = new Error('stopping');
    stop.abort(stopped);
    const attempt = jest.fn(() => Promise.resolve('ran'));
    await expect(callActivity('step', attempt, POLICY, { signal: stop.signal })).rejects.toBe(stopped);
    expect(attempt).not.toHaveBeenCalled();
    await expect(
      callActivity('ending', attempt, POLICY, { signal: stop.signal, runsWhenStopped: ['ending'] }),
    ).resolves.toBe('ran');
  });

  it('ends a backoff wait when the stop signal comes, with the stop as the failure', async () => {
    const stop = new AbortController();
    const stopped = new Error('stopping');
    const attempt = jest.fn(() => {
      setTimeout(() => stop.abort(stopped), 5);
      return Promise.reject(new Error('outage'));
    });
    const started = Date.now();
    await expect(callActivity('step', attempt, POLICY, { signal: stop.signal })).rejects.toBe(stopped);
    expect(attempt).toHaveBeenCalledTimes(1);
    expect(Date.now() - started).toBeLessThan(900);
  });
});

describe(withActivityOptions.name, () => {
  it('applies the options of each activity to its calls', async () => {
    const time = fakeTime();
    const failing = flaky([new Error('a'), new Error('b')], 'done');
    const activities = withActivityOptions(
      { patient: failing.attempt, impatient: () => Promise.reject(new Error('once')) },
      (name) => (name === 'patient' ? POLICY : { retry: { maximumAttempts: 1 } }),
      time,
    );
    await expect(activities.patient()).resolves.toBe('done');
    await expect(activities.impatient()).rejects.toThrow('once');
    expect(time.waits).toEqual([1_000, 2_000]);
  });
});

describe('failure types', () => {
  it('are an ApplicationFailure’s own type, or the error’s name, as Temporal reports them', () => {
    expect(failureType(ApplicationFailure.retryable('x', 'GuildNotFound'))).toBe('GuildNotFound');
    expect(failureType(new TypeError('x'))).toBe('TypeError');
    expect(failureType('text')).toBe('Error');
    expect(isRetryable(new TypeError('x'), ['TypeError'])).toBe(false);
    expect(isRetryable(new Error('x'), ['TypeError'])).toBe(true);
  });
});
