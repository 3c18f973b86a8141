import { SchedulerRegistry } from '@nestjs/schedule';
import { RetryTimer } from './retry-timer';

describe(RetryTimer.name, () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('fires once after the delay, listed in the registry only while it waits', () => {
    const registry = new SchedulerRegistry();
    const retry = new RetryTimer(registry, 'reconnect');
    const fired = jest.fn();
    retry.schedule(1_000, fired);
    expect(registry.getTimeouts()).toEqual(['reconnect']);
    expect(retry.pending).toBe(true);
    jest.advanceTimersByTime(999);
    expect(fired).not.toHaveBeenCalled();
    jest.advanceTimersByTime(1);
    expect(fired).toHaveBeenCalledTimes(1);
    expect(registry.getTimeouts()).toEqual([]);
    expect(retry.pending).toBe(false);
    jest.advanceTimersByTime(10_000);
    expect(fired).toHaveBeenCalledTimes(1);
  });

  it('replaces a pending retry with the new one', () => {
    const registry = new SchedulerRegistry();
    const retry = new RetryTimer(registry, 'reconnect');
    const first = jest.fn();
    const second = jest.fn();
    retry.schedule(1_000, first);
    retry.schedule(2_000, second);
    expect(registry.getTimeouts()).toEqual(['reconnect']);
    jest.advanceTimersByTime(5_000);
    expect(first).not.toHaveBeenCalled();
    expect(second).toHaveBeenCalledTimes(1);
  });

  it('lets the retry schedule the next one: a back-off, one timer at a time', () => {
    const registry = new SchedulerRegistry();
    const retry = new RetryTimer(registry, 'reconnect');
    const delays: number[] = [];
    const attempt = (n: number) => {
      const delay = 100 * 2 ** n;
      delays.push(delay);
      if (n < 3) retry.schedule(delay, () => attempt(n + 1));
    };
    attempt(0);
    jest.advanceTimersByTime(100 + 200 + 400);
    expect(delays).toEqual([100, 200, 400, 800]);
    expect(registry.getTimeouts()).toEqual([]);
  });

  it('cancels: nothing fires and nothing stays listed', () => {
    const registry = new SchedulerRegistry();
    const retry = new RetryTimer(registry, 'reconnect');
    const fired = jest.fn();
    retry.schedule(1_000, fired);
    retry.cancel();
    retry.cancel();
    expect(registry.getTimeouts()).toEqual([]);
    expect(retry.pending).toBe(false);
    jest.advanceTimersByTime(5_000);
    expect(fired).not.toHaveBeenCalled();
    expect(jest.getTimerCount()).toBe(0);
  });

  it('copes with the scheduler clearing it first, as it does at shutdown', () => {
    const registry = new SchedulerRegistry();
    const retry = new RetryTimer(registry, 'reconnect');
    const fired = jest.fn();
    retry.schedule(1_000, fired);
    registry.deleteTimeout('reconnect');
    expect(retry.pending).toBe(false);
    expect(() => retry.cancel()).not.toThrow();
    jest.advanceTimersByTime(5_000);
    expect(fired).not.toHaveBeenCalled();
    retry.schedule(1_000, fired);
    jest.advanceTimersByTime(1_000);
    expect(fired).toHaveBeenCalledTimes(1);
  });

  it('leaves alone a timeout of the same name that another owner put there since', () => {
    const registry = new SchedulerRegistry();
    const retry = new RetryTimer(registry, 'reconnect');
    retry.schedule(1_000, jest.fn());
    registry.deleteTimeout('reconnect');
    const other = setTimeout(() => undefined, 1_000);
    registry.addTimeout('reconnect', other);
    retry.cancel();
    expect(registry.getTimeout('reconnect')).toBe(other);
    clearTimeout(other);
  });
});
