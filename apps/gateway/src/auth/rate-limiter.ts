import { Inject, Injectable, Logger } from '@nestjs/common';
import { CommonErrors } from '@lib/problem-details';
import { KEY_VALUE_STORE, type KeyValueStore } from '@lib/key-value';
import type { Response } from 'express';

const WINDOW_MS = 60_000;

/**
 * Fixed one-minute windows counted in the key-value store, so every gateway replica shares one
 * count per client. When the store cannot count, requests pass: the limiter protects the services,
 * it must not become the outage (sessions, which need the store too, fail on their own).
 */
@Injectable()
export class RateLimiter {
  private readonly logger = new Logger(RateLimiter.name);

  constructor(@Inject(KEY_VALUE_STORE) private readonly store: KeyValueStore) {}

  /** Counts one request against `key`; over `limit` it answers 429 with `Retry-After`. */
  async consume(key: string, limit: number, res: Response, now = Date.now()): Promise<void> {
    const window = Math.floor(now / WINDOW_MS);
    const counter = `rl:${key}:${window}`;
    let count: number;
    try {
      // Outlives its window by a second, for a replica whose clock runs slightly late.
      count = await this.store.increment(counter, WINDOW_MS + 1_000);
    } catch (error) {
      this.logger.warn({ err: String(error) }, 'rate limit not counted: key-value store unavailable');
      return;
    }
    if (count <= limit) return;
    const retryAfterS = Math.max(1, Math.ceil(((window + 1) * WINDOW_MS - now) / 1_000));
    res.setHeader('Retry-After', String(retryAfterS));
    throw CommonErrors.rateLimited(`More than ${limit} requests a minute. Try again in ${retryAfterS} s.`, {
      retry_after: retryAfterS,
    });
  }
}
