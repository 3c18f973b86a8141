import { SchedulerRegistry } from '@nestjs/schedule';
import { ScheduledPass } from './scheduled-pass';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe(ScheduledPass.name, () => {
  it('runs on its interval, never two at once, and keeps going after a failure', async () => {
    let active = 0;
    let overlapped = false;
    let passes = 0;
    const registry = new SchedulerRegistry();
    const pass = new ScheduledPass(registry, 'test', async () => {
      passes++;
      active++;
      overlapped ||= active > 1;
      await sleep(10);
      active--;
      if (passes === 1) throw new Error('first pass fails');
    });
    pass.every(5, { now: true });
    expect(registry.getIntervals()).toEqual(['test']);
    await sleep(80);
    await pass.stop();
    expect(passes).toBeGreaterThanOrEqual(3);
    expect(overlapped).toBe(false);
    expect(registry.getIntervals()).toEqual([]);
  });

  it('stops: waits for the pass in flight and starts no other', async () => {
    let finished = 0;
    let started = 0;
    const registry = new SchedulerRegistry();
    const pass = new ScheduledPass(registry, 'test', async () => {
      started++;
      await sleep(20);
      finished++;
    });
    pass.every(1, { now: true });
    await sleep(5);
    await pass.stop();
    expect(pass.isStopped).toBe(true);
    expect(finished).toBe(started);
    await sleep(20);
    expect(started).toBe(finished);
  });

  it('runs on a cron schedule, registered under its name', async () => {
    const registry = new SchedulerRegistry();
    let passes = 0;
    const pass = new ScheduledPass(registry, 'nightly', () => {
      passes++;
      return Promise.resolve();
    });
    pass.cron('* * * * * *');
    expect([...registry.getCronJobs().keys()]).toEqual(['nightly']);
    await sleep(1_100);
    await pass.stop();
    expect(passes).toBeGreaterThanOrEqual(1);
    expect(registry.getCronJobs().size).toBe(0);
  });

  it('runs a pass now on request, joining the one in flight instead of starting a second', async () => {
    let started = 0;
    const pass = new ScheduledPass(new SchedulerRegistry(), 'test', async () => {
      started++;
      await sleep(10);
    });
    await Promise.all([pass.runNow(), pass.runNow()]);
    expect(started).toBe(1);
  });

  it('holds the process open only when asked to', async () => {
    const registry = new SchedulerRegistry();
    const held = new ScheduledPass(registry, 'held', () => Promise.resolve());
    const housekeeping = new ScheduledPass(registry, 'housekeeping', () => Promise.resolve());
    held.every(1_000);
    housekeeping.every(1_000, { unref: true });
    expect((registry.getInterval('held') as NodeJS.Timeout).hasRef()).toBe(true);
    expect((registry.getInterval('housekeeping') as NodeJS.Timeout).hasRef()).toBe(false);
    await Promise.all([held.stop(), housekeeping.stop()]);
  });

  it('runs nothing once stopped, not even on request', async () => {
    let started = 0;
    const pass = new ScheduledPass(new SchedulerRegistry(), 'test', () => {
      started++;
      return Promise.resolve();
    });
    await pass.stop();
    await pass.runNow();
    expect(started).toBe(0);
  });

  it('logs a pass that throws before its first await, and runs the next', async () => {
    let calls = 0;
    const pass = new ScheduledPass(new SchedulerRegistry(), 'test', () => {
      calls++;
      if (calls === 1) throw new Error('thrown at once');
      return Promise.resolve();
    });
    await pass.runNow();
    await pass.runNow();
    expect(calls).toBe(2);
  });
});
