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
}

export const DEFAULT_RATE_LIMITS: RateLimitSettings = {
  perRoute: { limit: 10, windowMs: 1_000 },
  global: { limit: 50, windowMs: 1_000 },
};

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

/** The platform's bucket id for a route: an opaque hash, stable per method and path template. */
export function bucketHash(method: string, template: string): string {
  return createHash('md5').update(`${method} ${template}`).digest('hex');
}

/**
 * The global and per-route limits of the fake, rendered as the platform's headers and 429 bodies
 * (`retry_after` in seconds, `X-RateLimit-Reset` in epoch seconds).
 */
export class PlatformRateLimits {
  private global?: FixedWindowLimiter;
  private perRoute?: FixedWindowLimiter;
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
    this.global = settings.global === 'off' ? undefined : new FixedWindowLimiter(settings.global);
    this.perRoute = settings.perRoute === 'off' ? undefined : new FixedWindowLimiter(settings.perRoute);
  }

  check(bucket: { key: string; hash: string }, nowMs: number): RateLimitVerdict {
    const global = this.global?.take('global', nowMs);
    if (global && !global.allowed) {
      const retryAfterMs = global.resetAtMs - nowMs;
      return {
        headers: {
          'Retry-After': seconds(retryAfterMs),
          'X-RateLimit-Global': 'true',
          'X-RateLimit-Scope': 'user',
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
      headers: { ...headers, 'Retry-After': seconds(retryAfterMs), 'X-RateLimit-Scope': 'user' },
      rejection: { message: 'You are being rate limited.', retry_after: retryAfterMs / 1000, global: false },
    };
  }
}
