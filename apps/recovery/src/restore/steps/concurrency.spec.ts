import { asTheyBecomeReady, CONCURRENCY, runConcurrently } from './concurrency';

describe(runConcurrently.name, () => {
  it(`does every item, at most ${CONCURRENCY} at once`, async () => {
    let inFlight = 0;
    let most = 0;
    const done: number[] = [];
    await runConcurrently(
      Array.from({ length: 25 }, (_, i) => i),
      async (item) => {
        most = Math.max(most, ++inFlight);
        await new Promise((resolve) => setImmediate(resolve));
        inFlight--;
        done.push(item);
      },
    );
    expect(done.sort((a, b) => a - b)).toEqual(Array.from({ length: 25 }, (_, i) => i));
    expect(most).toBe(CONCURRENCY);
  });

  it('starts nothing new after a failure, and throws it', async () => {
    const started: number[] = [];
    const failure = new Error('refused');
    await expect(
      runConcurrently(
        Array.from({ length: 40 }, (_, i) => i),
        async (item) => {
          started.push(item);
          await new Promise((resolve) => setImmediate(resolve));
          if (item === 0) throw failure;
        },
      ),
    ).rejects.toBe(failure);
    expect(started.length).toBe(CONCURRENCY);
  });
});

describe(asTheyBecomeReady.name, () => {
  it('takes an item once it becomes ready, waiting while more may become ready, up to the limit', async () => {
    const ready = new Set<number>([1]);
    const done: number[] = [];
    let waits = 0;
    const count = await asTheyBecomeReady<number>({
      next: (taken) => [...ready].find((item) => !taken.has(item)),
      work: (item) => {
        done.push(item);
        // Doing an item readies the next one, as a category readies its channels.
        if (item < 5) ready.add(item + 1);
        return Promise.resolve();
      },
      mayReady: () => waits < 3,
      wait: () => {
        waits++;
        return Promise.resolve();
      },
      limit: 4,
    });
    expect(count).toBe(4);
    expect(done).toEqual([1, 2, 3, 4]);
  });
});
