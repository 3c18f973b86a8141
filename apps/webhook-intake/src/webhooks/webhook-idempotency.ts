import { Inject, Injectable, Logger } from '@nestjs/common';
import { KEY_VALUE_STORE, type KeyValueStore } from '@lib/key-value';

/** docs/behaviour.md §8: webhook idempotency key lifetime. */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;
/**
 * A key derived from a Toss delivery (`lookup` mode) outlives Toss's last resend (3 days 19 hours
 * after the first delivery, TOSS_WEBHOOK_RETRY_WINDOW_MS): 4 days.
 */
export const LOOKUP_IDEMPOTENCY_TTL_SECONDS = 4 * 24 * 60 * 60;

export type IdempotencyClaim = 'acquired' | 'exists' | 'unavailable';

/**
 * The first line of deduplication (docs/behaviour.md §4.9 step 2): `idem:webhook:<source>:<id>` set only when
 * absent, for 24 h (4 days for Toss's deliveries), in the key-value store (Redis's `SET NX EX`, or its Postgres table in standalone
 * mode). The store being down must not stop the intake: the claim is then `unavailable` and the
 * database's unique index decides alone.
 */
@Injectable()
export class WebhookIdempotency {
  private readonly logger = new Logger(WebhookIdempotency.name);

  constructor(@Inject(KEY_VALUE_STORE) private readonly store: KeyValueStore) {}

  static key(source: string, externalEventId: string): string {
    return `idem:webhook:${source}:${externalEventId}`;
  }

  async claim(
    source: string,
    externalEventId: string,
    ttlSeconds = IDEMPOTENCY_TTL_SECONDS,
  ): Promise<IdempotencyClaim> {
    try {
      const acquired = await this.store.setIfAbsent(
        WebhookIdempotency.key(source, externalEventId),
        '1',
        ttlSeconds,
      );
      return acquired ? 'acquired' : 'exists';
    } catch (error) {
      this.logger.warn(
        { err: (error as Error).message },
        'idempotency store unavailable; the database alone deduplicates',
      );
      return 'unavailable';
    }
  }

  /** After a failed routing the resend must be processed again, not taken for a duplicate. */
  async release(source: string, externalEventId: string): Promise<void> {
    try {
      await this.store.delete(WebhookIdempotency.key(source, externalEventId));
    } catch (error) {
      this.logger.warn(
        { err: (error as Error).message },
        'idempotency store unavailable; idempotency key not released',
      );
    }
  }
}
