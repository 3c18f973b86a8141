import { TtlCache } from './ttl-cache';

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe(TtlCache.name, () => {
  let clock: number;
  let sut: TtlCache<string>;
  let loads: number;
  const load = (value: string) => () => {
    loads++;
    return Promise.resolve(value);
  };

  beforeEach(() => {
    clock = 1_000_000;
    loads = 0;
    sut = new TtlCache<string>(60_000, () => clock, 3);
  });

  it('serves a cached value for the whole lifetime and reloads after it', async () => {
    expect(await sut.get('g', load('a'))).toBe('a');
    clock += 59_999;
    expect(await sut.get('g', load('b'))).toBe('a');
    clock += 1;
    expect(await sut.get('g', load('c'))).toBe('c');
    expect(loads).toBe(2);
  });

  it('reloads at once after an invalidation', async () => {
    await sut.get('g', load('a'));
    sut.invalidate('g');
    expect(await sut.get('g', load('b'))).toBe('b');
  });

  it('reloads when the value itself says it is no longer valid', async () => {
    await sut.get('g', load('a'));
    expect(await sut.get('g', load('b'), (value) => value !== 'a')).toBe('b');
  });

  it('shares one load between concurrent misses', async () => {
    const pending = deferred<string>();
    let calls = 0;
    const slow = () => {
      calls++;
      return pending.promise;
    };
    const all = Promise.all([sut.get('g', slow), sut.get('g', slow), sut.get('g', slow)]);
    pending.resolve('a');
    expect(await all).toEqual(['a', 'a', 'a']);
    expect(calls).toBe(1);
  });

  it('does not keep a value whose load was overtaken by an invalidation', async () => {
    const pending = deferred<string>();
    const first = sut.get('g', () => pending.promise);
    sut.invalidate('g');
    pending.resolve('before-upgrade');
    expect(await first).toBe('before-upgrade');
    expect(await sut.get('g', load('after-upgrade'))).toBe('after-upgrade');
  });

  it('does not keep values loading during a clear', async () => {
    const pending = deferred<string>();
    const first = sut.get('g', () => pending.promise);
    sut.clear();
    pending.resolve('old');
    await first;
    expect(await sut.get('g', load('new'))).toBe('new');
  });

  it('forgets a failed load so the next call tries again', async () => {
    await expect(sut.get('g', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(await sut.get('g', load('a'))).toBe('a');
  });

  it('drops the oldest entry beyond its capacity', async () => {
    for (const key of ['a', 'b', 'c', 'd']) await sut.get(key, load(key));
    expect(sut.size).toBe(3);
    loads = 0;
    await sut.get('a', load('a2'));
    expect(loads).toBe(1);
  });
});
