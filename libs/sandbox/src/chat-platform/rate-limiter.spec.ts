import {
  DEFAULT_RATE_LIMITS,
  FixedWindowLimiter,
  PlatformRateLimits,
  type RateLimitSettings,
  bucketHash,
  resourceLimitOf,
} from './rate-limiter';

const ONLY: RateLimitSettings = {
  perRoute: 'off',
  global: 'off',
  channelNameTopic: 'off',
  roleCreations: 'off',
  channelCreations: 'off',
};

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

  it("renders the platform's bucket headers, then a 429: retry_after a float, Retry-After whole seconds", () => {
    const sut = new PlatformRateLimits({ ...ONLY, perRoute: { limit: 2, windowMs: 1000 } });
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
      'Retry-After': '1',
      'X-RateLimit-Scope': 'user',
    });
  });

  it('answers a global 429 once the bot exceeds the global limit across routes', () => {
    const sut = new PlatformRateLimits({ ...ONLY, global: { limit: 2, windowMs: 1000 } });
    expect(sut.check({ key: 'a', hash: 'a' }, T0)).toEqual({ headers: {} });
    expect(sut.check({ key: 'b', hash: 'b' }, T0).rejection).toBeUndefined();
    const limited = sut.check({ key: 'c', hash: 'c' }, T0 + 400);
    expect(limited.rejection).toEqual({
      message: 'You are being rate limited.',
      retry_after: 0.6,
      global: true,
    });
    expect(limited.headers).toEqual({
      'X-RateLimit-Global': 'true',
      'X-RateLimit-Scope': 'global',
      'Retry-After': '1',
    });
  });

  it('sends no headers and never limits when both limits are off', () => {
    const sut = new PlatformRateLimits(ONLY);
    for (let i = 0; i < 1000; i++) expect(sut.check(bucket, T0)).toEqual({ headers: {} });
  });

  it('gives one bucket hash per method and template', () => {
    expect(bucketHash('POST', '/guilds/:guild_id/roles')).toBe(bucket.hash);
    expect(bucketHash('PATCH', '/guilds/:guild_id/roles')).not.toBe(bucket.hash);
    expect(bucket.hash).toMatch(/^[0-9a-f]{32}$/);
  });

  it('rounds Retry-After up to whole seconds and keeps the fraction in retry_after', () => {
    const sut = new PlatformRateLimits({ ...ONLY, perRoute: { limit: 1, windowMs: 2_500 } });
    sut.check(bucket, T0);
    const limited = sut.check(bucket, T0 + 400);
    expect(limited.headers['Retry-After']).toBe('3');
    expect(limited.rejection?.retry_after).toBe(2.1);
  });
});

describe(resourceLimitOf.name, () => {
  it("counts a channel's name or topic edits per channel, and no other edit of it", () => {
    const params = { channel_id: '42' };
    expect(resourceLimitOf('PATCH', '/channels/:channel_id', params, { name: 'a' })).toEqual({
      limit: 'channelNameTopic',
      key: '42',
    });
    expect(resourceLimitOf('PATCH', '/channels/:channel_id', params, { topic: null })).toEqual({
      limit: 'channelNameTopic',
      key: '42',
    });
    expect(resourceLimitOf('PATCH', '/channels/:channel_id', params, { position: 3 })).toBeUndefined();
    expect(resourceLimitOf('PATCH', '/channels/:channel_id', params, undefined)).toBeUndefined();
  });

  it('counts role and channel creations per guild', () => {
    const params = { guild_id: '7' };
    expect(resourceLimitOf('POST', '/guilds/:guild_id/roles', params, {})).toEqual({
      limit: 'roleCreations',
      key: '7',
    });
    expect(resourceLimitOf('POST', '/guilds/:guild_id/channels', params, {})).toEqual({
      limit: 'channelCreations',
      key: '7',
    });
    expect(resourceLimitOf('PATCH', '/guilds/:guild_id/roles', params, [])).toBeUndefined();
  });
});

describe('PlatformRateLimits resource limits', () => {
  const routeHeaders = { 'X-RateLimit-Limit': '10', 'X-RateLimit-Remaining': '9' };
  const rename = { limit: 'channelNameTopic' as const, key: '42' };

  it('defaults to 2 name/topic edits per 10 minutes, 250 roles and 500 channels per 48 hours', () => {
    const day = 24 * 60 * 60 * 1000;
    expect(DEFAULT_RATE_LIMITS).toMatchObject({
      channelNameTopic: { limit: 2, windowMs: 10 * 60 * 1000 },
      roleCreations: { limit: 250, windowMs: 2 * day },
      channelCreations: { limit: 500, windowMs: 2 * day },
    });
  });

  it("answers the third name edit of a channel in its window 429, keeping the route's headers", () => {
    const sut = new PlatformRateLimits({ ...ONLY, channelNameTopic: { limit: 2, windowMs: 600_000 } });
    expect(sut.checkResource(rename, routeHeaders, T0)).toBeUndefined();
    sut.count(rename, T0);
    sut.count(rename, T0 + 1000);
    expect(sut.checkResource({ ...rename, key: '43' }, routeHeaders, T0 + 2000)).toBeUndefined();
    expect(sut.checkResource(rename, routeHeaders, T0 + 100_500)).toEqual({
      headers: {
        ...routeHeaders,
        'Retry-After': '500',
        'X-RateLimit-Scope': 'user',
      },
      rejection: { message: 'You are being rate limited.', retry_after: 499.5, global: false },
    });
    expect(sut.checkResource(rename, routeHeaders, T0 + 600_000)).toBeUndefined();
  });

  it('counts only what succeeded: a checked request that failed leaves the quota as it was', () => {
    const roles = { limit: 'roleCreations' as const, key: '7' };
    const sut = new PlatformRateLimits({ ...ONLY, roleCreations: { limit: 1, windowMs: 60_000 } });
    expect(sut.checkResource(roles, {}, T0)).toBeUndefined();
    expect(sut.checkResource(roles, {}, T0)).toBeUndefined();
    sut.count(roles, T0);
    expect(sut.checkResource(roles, {}, T0 + 1)?.rejection?.retry_after).toBeCloseTo(59.999);
  });

  it('lets everything through when a resource limit is off', () => {
    const sut = new PlatformRateLimits(ONLY);
    for (let i = 0; i < 10; i++) sut.count(rename, T0);
    expect(sut.checkResource(rename, routeHeaders, T0)).toBeUndefined();
  });
});
