/**
 * Waits until every promise of `work` has settled (fulfilled or rejected), but at most `ms`
 * milliseconds: true when they all settled in time, false when the wait gave up. For a shutdown
 * that lets work under way finish within a grace period and then goes on without it.
 */
export async function settledWithin(work: readonly Promise<unknown>[], ms: number): Promise<boolean> {
  const settled = Promise.allSettled(work).then(() => true);
  let timer: NodeJS.Timeout | undefined;
  const gaveUp = new Promise<false>((resolve) => {
    timer = setTimeout(resolve, ms, false);
  });
  try {
    return await Promise.race([settled, gaveUp]);
  } finally {
    clearTimeout(timer);
  }
}
