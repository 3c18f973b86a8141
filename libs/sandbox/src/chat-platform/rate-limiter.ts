import { createHash } from 'node:crypto';

export interface RateLimitWindow {
  limit: number;
  windowMs: number;
}

/** 'off' lets everything through and sends no rate-limit headers, as for an unlimited route. */
export type RateLimitSetting = RateLimitWindow | 'off';

export interface RateLimitSettings {
  /** Each bucket: method + path template + major parameter (guild or channel id). */
  perRoute: RateLimitSetting;
  /** All requests of the bot together. */
  global: RateLimitSetting;
  /**
   * Edits of one channel's name or topic (PATCH /channels/:id whose body has either field),
   * counted per channel on top of the route's bucket. Not in the platform's documentation (it
   * declined to document it: discord-api-docs pull 2760, "we do not typically document rate
   * limits"); the figure, 2 per 10 minutes, is the one the platform announced in its developer
   * server and reported in discord-api-docs issues 1900 and 2208, and @discordjs/rest gives these
   * edits a queue of their own (`hasSublimit`).
   */
  channelNameTopic: RateLimitSetting;
  /**
   * Roles one guild may have created in the quota's window (POST /guilds/:id/roles that
   * succeeded). Undocumented: the figure, about 250 per 48 hours, comes from reports
   * (discord-api-docs issue 1480; the pull request 1073 proposing to document it was closed).
   * It is not the count limit (at most 250 roles at once, error 30005), which is separate.
   */
  roleCreations: RateLimitSetting;
  /**
   * Channels one guild may have created in the quota's window. Undocumented as well: about 500 per
   * 48 hours by the same reports; not the count limit (500 channels at once, error 30013).
   */
  channelCreations: RateLimitSetting;
}

/** The platform's creation quotas are counted over this long (48 hours). */
export const CREATION_QUOTA_WINDOW_MS = 48 * 60 * 60 * 1000;

export const DEFAULT_RATE_LIMITS: RateLimitSettings = {
  perRoute: { limit: 10, windowMs: 1_000 },
  global: { limit: 50, windowMs: 1_000 },
  channelNameTopic: { limit: 2, windowMs: 10 * 60 * 1000 },
  roleCreations: { limit: 250, windowMs: CREATION_QUOTA_WINDOW_MS },
  channelCreations: { limit: 500, windowMs: CREATION_QUOTA_WINDOW_MS },
};

/** The limits a request falls under besides its route's bucket and the global one. */
export type ResourceLimit = 'channelNameTopic' | 'roleCreations' | 'channelCreations';

/**
 * Which resource limit a request counts against, and the key it is counted under (the channel, or
 * the guild); undefined for most requests.
 */
export function resourceLimitOf(
  method: string,
  template: string,
  params: Record<string, string>,
  body: unknown,
): { limit: ResourceLimit; key: string } | undefined {
  if (method === 'POST' && template === '/guilds/:guild_id/roles') {
    return { limit: 'roleCreations', key: params.guild_id };
  }
  if (method === 'POST' && template === '/guilds/:guild_id/channels') {
    return { limit: 'channelCreations', key: params.guild_id };
  }
  if (method === 'PATCH' && template === '/channels/:channel_id') {
    const fields = typeof body === 'object' && body !== null ? body : {};
    if ('name' in fields || 'topic' in fields) return { limit: 'channelNameTopic', key: params.channel_id };
  }
  return undefined;
}

export type WindowDecision =
  | { allowed: true; limit: number; remaining: number; resetAtMs: number }
  | { allowed: false; limit: number; remaining: 0; resetAtMs: number };

/** Past this many buckets, finished windows are dropped so a long-running sandbox stays small. */
const SWEEP_THRESHOLD = 10_000;

/**
 * Fixed windows as the platform's buckets behave: a window opens with the first request of a key
 * and closes `windowMs` later; until then at most `limit` requests pass.
 */
export class FixedWindowLimiter {
  private readonly windows = new Map<string, { resetAtMs: number; remaining: number }>();

  constructor(private readonly window: RateLimitWindow) {}

  /** Whether a request would pass now, without counting it. */
  peek(key: string, nowMs: number): WindowDecision {
    const current = this.windows.get(key);
    if (!current || nowMs >= current.resetAtMs) {
      const resetAtMs = nowMs + this.window.windowMs;
      return { allowed: true, limit: this.window.limit, remaining: this.window.limit - 1, resetAtMs };
    }
    if (current.remaining <= 0) {
      return { allowed: false, limit: this.window.limit, remaining: 0, resetAtMs: current.resetAtMs };
    }
    return {
      allowed: true,
      limit: this.window.limit,
      remaining: current.remaining - 1,
      resetAtMs: current.resetAtMs,
    };
  }

  take(key: string, nowMs: number): WindowDecision {
    let current = this.windows.get(key);
    if (!current || nowMs >= current.resetAtMs) {
      if (this.windows.size >= SWEEP_THRESHOLD) this.sweep(nowMs);
      current = { resetAtMs: nowMs + this.window.windowMs, remaining: this.window.limit };
      this.windows.set(key, current);
    }
    if (current.remaining <= 0) {
      return { allowed: false, limit: this.window.limit, remaining: 0, resetAtMs: current.resetAtMs };
    }
    current.remaining--;
    return {
      allowed: true,
      limit: this.window.limit,
      remaining: current.remaining,
      resetAtMs: current.resetAtMs,
    };
  }

  private sweep(nowMs: number): void {
    for (const [key, window] of this.windows) if (nowMs >= window.resetAtMs) this.windows.delete(key);
  }
}

export interface RateLimitVerdict {
  headers: Record<string, string>;
  /** Set when the request must be answered 429 with this body. */
  rejection?: { retry_after: number; global: boolean; message: string };
}

const seconds = (ms: number) => (ms / 1000).toFixed(3);
/** `Retry-After` is whole seconds on the platform (RFC 9110's delay-seconds), rounded up. */
const wholeSeconds = (ms: number) => String(Math.max(1, Math.ceil(ms / 1000)));

/** The platform's bucket id for a route: an opaque hash, stable per method and path template. */
export function bucketHash(method: string, template: string): string {
  return createHash('md5').update(`${method} ${template}`).digest('hex');
}

/**
 * The global, per-route and resource limits of the fake, rendered as the platform's headers and 429
 * bodies (topics/rate-limits, "Header Format" and "Exceeding A Rate Limit"): `retry_after` a float
 * in seconds, `Retry-After` whole seconds rounded up, `X-RateLimit-Reset` epoch seconds with
 * decimals, and `X-RateLimit-Scope` on every 429 (`global` for the global limit, `user` for the
 * bot's own buckets).
 */
export class PlatformRateLimits {
  private global?: FixedWindowLimiter;
  private perRoute?: FixedWindowLimiter;
  private resources: Partial<Record<ResourceLimit, FixedWindowLimiter>> = {};
  private current: RateLimitSettings;

  constructor(settings: RateLimitSettings) {
    this.current = settings;
    this.configure(settings);
  }

  get settings(): RateLimitSettings {
    return this.current;
  }

  /** New settings start with fresh windows. */
  configure(settings: RateLimitSettings): void {
    this.current = settings;
    const limiter = (setting: RateLimitSetting) =>
      setting === 'off' ? undefined : new FixedWindowLimiter(setting);
    this.global = limiter(settings.global);
    this.perRoute = limiter(settings.perRoute);
    this.resources = {
      channelNameTopic: limiter(settings.channelNameTopic),
      roleCreations: limiter(settings.roleCreations),
      channelCreations: limiter(settings.channelCreations),
    };
  }

  check(bucket: { key: string; hash: string }, nowMs: number): RateLimitVerdict {
    const global = this.global?.take('global', nowMs);
    if (global && !global.allowed) {
      const retryAfterMs = global.resetAtMs - nowMs;
      return {
        headers: {
          'Retry-After': wholeSeconds(retryAfterMs),
          'X-RateLimit-Global': 'true',
          'X-RateLimit-Scope': 'global',
        },
        rejection: { message: 'You are being rate limited.', retry_after: retryAfterMs / 1000, global: true },
      };
    }
    const route = this.perRoute?.take(bucket.key, nowMs);
    if (!route) return { headers: {} };
    const headers: Record<string, string> = {
      'X-RateLimit-Limit': String(route.limit),
      'X-RateLimit-Remaining': String(route.remaining),
      'X-RateLimit-Reset': seconds(route.resetAtMs),
      'X-RateLimit-Reset-After': seconds(route.resetAtMs - nowMs),
      'X-RateLimit-Bucket': bucket.hash,
    };
    if (route.allowed) return { headers };
    const retryAfterMs = route.resetAtMs - nowMs;
    return {
      headers: { ...headers, 'Retry-After': wholeSeconds(retryAfterMs), 'X-RateLimit-Scope': 'user' },
      rejection: { message: 'You are being rate limited.', retry_after: retryAfterMs / 1000, global: false },
    };
  }

  /**
   * A request past its resource limit (see ResourceLimit), checked after its route's bucket let it
   * through: the 429 keeps the route's headers as they are (`X-RateLimit-Remaining` above 0, as
   * the platform answered in discord-api-docs issue 1900, which is how @discordjs/rest tells such a
   * limit from its bucket's), with `retry_after` until the window ends. Nothing is counted here:
   * `count` counts a request that succeeded.
   *
   * The scope is `user`: these limits are the bot's own (another account's edits or creations are
   * not counted against it in the reports), and `shared` would tell the client the 429 is free
   * against the invalid-request limit, which the platform does not promise here; the stricter
   * reading.
   */
  checkResource(
    resource: { limit: ResourceLimit; key: string },
    routeHeaders: Record<string, string>,
    nowMs: number,
  ): RateLimitVerdict | undefined {
    const decision = this.resources[resource.limit]?.peek(resource.key, nowMs);
    if (!decision || decision.allowed) return undefined;
    const retryAfterMs = decision.resetAtMs - nowMs;
    return {
      headers: { ...routeHeaders, 'Retry-After': wholeSeconds(retryAfterMs), 'X-RateLimit-Scope': 'user' },
      rejection: { message: 'You are being rate limited.', retry_after: retryAfterMs / 1000, global: false },
    };
  }

  /** Counts a request that succeeded against its resource limit. */
  count(resource: { limit: ResourceLimit; key: string }, nowMs: number): void {
    this.resources[resource.limit]?.take(resource.key, nowMs);
  }
}
