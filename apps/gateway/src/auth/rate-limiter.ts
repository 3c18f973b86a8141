import { Inject, Injectable, Logger } from '@nestjs/common';
import { DomainError } from '@lib/problem-details';
import type { Response } from 'express';
import type Redis from 'ioredis';
import { GATEWAY_REDIS } from './redis';

const WINDOW_MS = 60_000;

/**
 * Fixed one-minute windows counted in Redis, so every gateway replica shares one count per client.
 * When Redis cannot count, requests pass: the limiter protects the services, it must not become
 * the outage (sessions, which need Redis too, fail on their own).
 */
@Injectable()
export class RateLimiter {
  private readonly logger = new Logger(RateLimiter.name);

  constructor(@Inject(GATEWAY_REDIS) private readonly redis: Redis) {}

  /** Counts one request against `key`; over `limit` it answers 429 with `Retry-After`. */
  async consume(key: string, limit: number, res: Response, now = Date.now()): Promise<void> {
    const window = Math.floor(now / WINDOW_MS);
    const counter = `rl:${key}:${window}`;
    let count: number;
    try {
      const results = await this.redis
        .multi()
        .incr(counter)
        .pexpire(counter, WINDOW_MS + 1_000)
        .exec();
      count = Number(results?.[0]?.[1] ?? 0);
    } catch (error) {
      this.logger.warn({ err: String(error) }, 'rate limit not counted: Redis unavailable');
      return;
    }
    if (count <= limit) return;
    const retryAfterS = Math.max(1, Math.ceil(((window + 1) * WINDOW_MS - now) / 1_000));
    res.setHeader('Retry-After', String(retryAfterS));
    throw new DomainError(
      'ErrRateLimited',
      429,
      'Too many requests',
      `More than ${limit} requests a minute. Try again in ${retryAfterS} s.`,
      { retry_after: retryAfterS },
    );
  }
}
