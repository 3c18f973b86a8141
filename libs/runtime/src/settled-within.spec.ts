import { settledWithin } from './settled-within';

describe(settledWithin.name, () => {
  it('answers true once every promise has settled, rejected ones included', async () => {
    const slow = new Promise((resolve) => setTimeout(resolve, 20));
    await expect(settledWithin([slow, Promise.reject(new Error('failed'))], 1_000)).resolves.toBe(true);
  });

  it('answers false when a promise is still pending after the grace period', async () => {
    const started = Date.now();
    await expect(settledWithin([new Promise(() => undefined), Promise.resolve()], 30)).resolves.toBe(false);
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
  });

  it('answers true at once for no work', async () => {
    await expect(settledWithin([], 10_000)).resolves.toBe(true);
  });
});
