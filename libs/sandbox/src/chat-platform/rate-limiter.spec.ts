import { FixedWindowLimiter, PlatformRateLimits, bucketHash } from './rate-limiter';

const T0 = 1_750_000_000_000;

describe(FixedWindowLimiter.name, () => {
  it('lets `limit` requests through per window and counts down the remainder', () => {
    const sut = new FixedWindowLimiter({ limit: 3, windowMs: 1000 });
    expect([0, 10, 20].map((dt) => sut.take('a', T0 + dt))).toEqual([
      { allowed: true, limit: 3, remaining: 2, resetAtMs: T0 + 1000 },
      { allowed: true, limit: 3, remaining: 1, resetAtMs: T0 + 1000 },
      { allowed: true, limit: 3, remaining: 0, resetAtMs: T0 + 1000 },
    ]);
    expect(sut.take('a', T0 + 999)).toEqual({ allowed: false, limit: 3, remaining: 0, resetAtMs: T0 + 1000 });
  });

  it('opens a new window at the reset time', () => {
    const sut = new FixedWindowLimiter({ limit: 1, windowMs: 1000 });
    expect(sut.take('a', T0).allowed).toBe(true);
    expect(sut.take('a', T0 + 500).allowed).toBe(false);
    expect(sut.take('a', T0 + 1000)).toEqual({ allowed: true, limit: 1, remaining: 0, resetAtMs: T0 + 2000 });
  });

  it('keeps keys apart', () => {
    const sut = new FixedWindowLimiter({ limit: 1, windowMs: 1000 });
    expect(sut.take('a', T0).allowed).toBe(true);
    expect(sut.take('b', T0).allowed).toBe(true);
    expect(sut.take('a', T0).allowed).toBe(false);
  });

  it('forgets finished windows once there are many buckets, and still limits live ones', () => {
    const sut = new FixedWindowLimiter({ limit: 1, windowMs: 1000 });
    for (let i = 0; i < 10_000; i++) sut.take(`old-${i}`, T0);
    expect(sut.take('live', T0 + 1500).allowed).toBe(true);
    expect(sut.take('live', T0 + 1600).allowed).toBe(false);
    expect(sut.take('old-1', T0 + 1600).allowed).toBe(true);
  });
});

describe(PlatformRateLimits.name, () => {
  const bucket = {
    key: 'POST /guilds/:guild_id/roles 1',
    hash: bucketHash('POST', '/guilds/:guild_id/roles'),
  };

  it("renders the platform's bucket headers, then a 429 with retry_after in seconds", () => {
    const sut = new PlatformRateLimits({ perRoute: { limit: 2, windowMs: 1000 }, global: 'off' });
    expect(sut.check(bucket, T0)).toEqual({
      headers: {
        'X-RateLimit-Limit': '2',
        'X-RateLimit-Remaining': '1',
        'X-RateLimit-Reset': ((T0 + 1000) / 1000).toFixed(3),
        'X-RateLimit-Reset-After': '1.000',
        'X-RateLimit-Bucket': bucket.hash,
      },
    });
    sut.check(bucket, T0 + 100);
    const limited = sut.check(bucket, T0 + 250);
    expect(limited.rejection).toEqual({
      message: 'You are being rate limited.',
      retry_after: 0.75,
      global: false,
    });
    expect(limited.headers).toMatchObject({
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset-After': '0.750',
      'Retry-After': '0.750',
    });
  });

  it('answers a global 429 once the bot exceeds the global limit across routes', () => {
    const sut = new PlatformRateLimits({ perRoute: 'off', global: { limit: 2, windowMs: 1000 } });
    expect(sut.check({ key: 'a', hash: 'a' }, T0)).toEqual({ headers: {} });
    expect(sut.check({ key: 'b', hash: 'b' }, T0).rejection).toBeUndefined();
    const limited = sut.check({ key: 'c', hash: 'c' }, T0 + 400);
    expect(limited.rejection).toEqual({
      message: 'You are being rate limited.',
      retry_after: 0.6,
      global: true,
    });
    expect(limited.headers).toMatchObject({ 'X-RateLimit-Global': 'true', 'Retry-After': '0.600' });
  });

  it('sends no headers and never limits when both limits are off', () => {
    const sut = new PlatformRateLimits({ perRoute: 'off', global: 'off' });
    for (let i = 0; i < 1000; i++) expect(sut.check(bucket, T0)).toEqual({ headers: {} });
  });

  it('gives one bucket hash per method and template', () => {
    expect(bucketHash('POST', '/guilds/:guild_id/roles')).toBe(bucket.hash);
    expect(bucketHash('PATCH', '/guilds/:guild_id/roles')).not.toBe(bucket.hash);
    expect(bucket.hash).toMatch(/^[0-9a-f]{32}$/);
  });
});
