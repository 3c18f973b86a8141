import type { ConcurrentIndex } from '@lib/database';

/**
 * DDL of a consuming service's idempotency record. A row per (consumer, event id) commits in the
 * same transaction as the consumer's effect; `failed` rows are events that can never succeed
 * (malformed, unknown plan) and were set aside so the partition moves on.
 */
export function processedEventsTableSql(schema: string): string[] {
  return [
    `CREATE TABLE "${schema}".processed_events (
      consumer text NOT NULL,
      event_id text NOT NULL,
      event_type text NOT NULL,
      status text NOT NULL DEFAULT 'done' CHECK (status IN ('done', 'failed')),
      error text,
      processed_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (consumer, event_id)
    )`,
    `CREATE INDEX processed_events_failed_idx ON "${schema}".processed_events (processed_at) WHERE status = 'failed'`,
  ];
}

/** The index processed_events retention deletes along: applied events, oldest first. */
export function processedEventsRetentionIndex(schema: string): ConcurrentIndex {
  return {
    schema,
    name: 'processed_events_done_at_idx',
    on: `processed_events (processed_at) WHERE status = 'done'`,
  };
}
