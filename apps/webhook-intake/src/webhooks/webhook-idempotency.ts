import { Logger } from '@nestjs/common';
import Redis from 'ioredis';

/** Spec §8: webhook idempotency key lifetime. */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;

export type IdempotencyClaim = 'acquired' | 'exists' | 'unavailable';

/**
 * The first line of deduplication (spec §4.9 step 2): `SET idem:webhook:<source>:<id> NX EX 86400`.
 * Redis being down must not stop the intake: the claim is then `unavailable` and the database's
 * unique index decides alone. Commands fail fast instead of queueing while disconnected.
 */
export class WebhookIdempotency {
  private readonly logger = new Logger(WebhookIdempotency.name);
  private readonly redis: Redis;

  constructor(url: string) {
    this.redis = new Redis(url, {
      lazyConnect: false,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: 1_000,
      commandTimeout: 500,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    });
    // Without a listener ioredis reports every failed reconnect as an unhandled error event.
    this.redis.on('error', (error: Error) =>
      this.logger.debug({ err: error.message }, 'redis connection error'),
    );
  }

  static key(source: string, externalEventId: string): string {
    return `idem:webhook:${source}:${externalEventId}`;
  }

  async claim(source: string, externalEventId: string): Promise<IdempotencyClaim> {
    try {
      const set = await this.redis.set(
        WebhookIdempotency.key(source, externalEventId),
        '1',
        'EX',
        IDEMPOTENCY_TTL_SECONDS,
        'NX',
      );
      return set === 'OK' ? 'acquired' : 'exists';
    } catch (error) {
      this.logger.warn(
        { err: (error as Error).message },
        'redis unavailable; the database alone deduplicates',
      );
      return 'unavailable';
    }
  }

  /** After a failed routing the resend must be processed again, not taken for a duplicate. */
  async release(source: string, externalEventId: string): Promise<void> {
    try {
      await this.redis.del(WebhookIdempotency.key(source, externalEventId));
    } catch (error) {
      this.logger.warn({ err: (error as Error).message }, 'redis unavailable; idempotency key not released');
    }
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
