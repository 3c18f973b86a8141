import { PeriodicTask } from './periodic-task';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe(PeriodicTask.name, () => {
  it('runs again after each pass, never two at once, and keeps going after a failure', async () => {
    let active = 0;
    let overlapped = false;
    let passes = 0;
    const task = new PeriodicTask('test', 5, async () => {
      passes++;
      active++;
      overlapped ||= active > 1;
      await sleep(10);
      active--;
      if (passes === 1) throw new Error('first pass fails');
    });
    task.start(0);
    await sleep(80);
    await task.stop();
    expect(passes).toBeGreaterThanOrEqual(3);
    expect(overlapped).toBe(false);
  });

  it('stops: waits for the pass in flight and starts no other', async () => {
    let finished = 0;
    let started = 0;
    const task = new PeriodicTask('test', 1, async () => {
      started++;
      await sleep(20);
      finished++;
    });
    task.start(0);
    await sleep(5);
    await task.stop();
    expect(task.isStopped).toBe(true);
    expect(finished).toBe(started);
    await sleep(20);
    expect(started).toBe(finished);
  });
});
