import { SnowflakeGenerator, compareSnowflakes } from './snowflake';

describe(compareSnowflakes.name, () => {
  it('orders ids as numbers, a shorter id first', () => {
    const ids = ['200000000000000010', '99999999999999999', '200000000000000002', '1'];
    expect([...ids].sort(compareSnowflakes)).toEqual([
      '1',
      '99999999999999999',
      '200000000000000002',
      '200000000000000010',
    ]);
    expect(compareSnowflakes('5', '5')).toBe(0);
  });
});

describe(SnowflakeGenerator.name, () => {
  it('gives increasing ids within one millisecond and across a clock that stands still', () => {
    const sut = new SnowflakeGenerator(() => 1_750_000_000_000);
    const ids = Array.from({ length: 1000 }, () => BigInt(sut.next()));
    for (let i = 1; i < ids.length; i++) expect(ids[i]).toBeGreaterThan(ids[i - 1]);
  });

  it('never goes back when the clock does', () => {
    let now = 1_750_000_000_000;
    const sut = new SnowflakeGenerator(() => now);
    const first = BigInt(sut.next());
    now -= 10_000;
    expect(BigInt(sut.next())).toBeGreaterThan(first);
  });

  it('shapes ids like the platform: 17-19 digits carrying the creation time', () => {
    const sut = new SnowflakeGenerator(() => 1_750_000_000_000);
    const id = sut.next();
    expect(id).toMatch(/^\d{17,19}$/);
    expect(Number((BigInt(id) >> 22n) + 1_420_070_400_000n)).toBe(1_750_000_000_000);
  });

  it('gives spread ids a millisecond of their own each, still increasing with the others', () => {
    const sut = new SnowflakeGenerator(() => 1_750_000_000_000);
    const ids = [sut.next(), sut.nextSpread(), sut.next(), sut.nextSpread(), sut.nextSpread()];
    const values = ids.map(BigInt);
    for (let i = 1; i < values.length; i++) expect(values[i]).toBeGreaterThan(values[i - 1]);
    const milliseconds = [1, 3, 4].map((i) => values[i] >> 22n);
    expect(milliseconds[1] - milliseconds[0]).toBe(1n);
    expect(milliseconds[2] - milliseconds[1]).toBe(1n);
    for (const id of ids) expect(id).toMatch(/^\d{17,19}$/);
  });

  it('takes the clock for a spread id once the clock is ahead', () => {
    let now = 1_750_000_000_000;
    const sut = new SnowflakeGenerator(() => now);
    sut.nextSpread();
    now += 60_000;
    expect(Number((BigInt(sut.nextSpread()) >> 22n) + 1_420_070_400_000n)).toBe(now);
  });
});
