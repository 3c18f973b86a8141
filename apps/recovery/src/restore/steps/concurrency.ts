/** Changes one activity call makes before handing back, so progress moves and cancel is timely. */
export const RESTORE_BATCH_SIZE = 50;

/**
 * Calls in flight at once. The platform client queues each rate-limit bucket and the global
 * limit itself; parallel calls only let different buckets (channels) proceed side by side.
 */
export const CONCURRENCY = 10;

export interface ReadyWork<T> {
  /** The next item that can go now, of those not taken yet. */
  next(taken: ReadonlySet<T>): T | undefined;
  work(item: T): Promise<unknown>;
  /** Waiting could ready more (a step beside, or other work of the call, is making what it needs). */
  mayReady(): boolean;
  /** A moment's wait, learning what has changed meanwhile. */
  wait(): Promise<unknown>;
  /** Items at most; default RESTORE_BATCH_SIZE. */
  limit?: number;
}

/**
 * Does up to `limit` items as they become ready, CONCURRENCY at a time; returns how many were done
 * once the limit is reached, or nothing is ready, in flight, or to wait for. After a failure no
 * new item starts, and the first failure is thrown.
 */
export async function asTheyBecomeReady<T>(work: ReadyWork<T>): Promise<number> {
  const limit = work.limit ?? RESTORE_BATCH_SIZE;
  const taken = new Set<T>();
  let started = 0;
  let done = 0;
  let failed = false;
  const lane = async () => {
    while (started < limit && !failed) {
      const item = work.next(taken);
      if (item !== undefined) {
        taken.add(item);
        started++;
        try {
          await work.work(item);
        } catch (error) {
          failed = true;
          throw error;
        }
        done++;
        continue;
      }
      // An item in flight here (a category) can ready others, as can what is being waited for.
      if (started === done && !work.mayReady()) return;
      await work.wait();
    }
  };
  const settled = await Promise.allSettled(Array.from({ length: CONCURRENCY }, lane));
  const failure = settled.find((result) => result.status === 'rejected');
  if (failure) throw failure.reason;
  return done;
}

/** Runs `work` over the items, CONCURRENCY at a time; after a failure no new item starts. */
export async function runConcurrently<T>(items: T[], work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await asTheyBecomeReady({
    next: () => items[next++],
    work,
    mayReady: () => false,
    wait: () => Promise.resolve(),
    limit: items.length,
  });
}
