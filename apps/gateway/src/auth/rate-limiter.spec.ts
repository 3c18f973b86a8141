import type { KeyValueStore } from '@lib/key-value';
import { DomainError } from '@lib/problem-details';
import type { Response } from 'express';
import { RateLimiter } from './rate-limiter';

function response() {
  const headers: Record<string, string> = {};
  const res = { setHeader: (name: string, value: string) => (headers[name] = value) } as unknown as Response;
  return { res, headers };
}

describe(RateLimiter.name, () => {
  const minute = 60_000;
  const start = 1_000 * minute;

  it('counts per key and clock minute, with a counter that outlives its window, and answers 429 over the limit', async () => {
    const counts = new Map<string, number>();
    const increment = jest.fn((key: string) => {
      counts.set(key, (counts.get(key) ?? 0) + 1);
      return Promise.resolve(counts.get(key)!);
    });
    const sut = new RateLimiter({ increment } as unknown as KeyValueStore);
    const { res, headers } = response();
    await sut.consume('ip:1.2.3.4', 2, res, start);
    await sut.consume('ip:1.2.3.4', 2, res, start + 1_000);
    const refused = sut.consume('ip:1.2.3.4', 2, res, start + 15_000);
    await expect(refused).rejects.toBeInstanceOf(DomainError);
    await expect(refused).rejects.toMatchObject({ code: 'ErrRateLimited', status: 429 });
    expect(headers['Retry-After']).toBe('45');
    expect(increment).toHaveBeenCalledWith('rl:ip:1.2.3.4:1000', minute + 1_000);
    // The next minute is a new window.
    await sut.consume('ip:1.2.3.4', 2, res, start + minute);
  });

  it('lets requests through when the store cannot count', async () => {
    const sut = new RateLimiter({
      increment: () => Promise.reject(new Error('down')),
    } as unknown as KeyValueStore);
    await expect(sut.consume('ip:1.2.3.4', 0, response().res)).resolves.toBeUndefined();
  });
});
