import type { MigrationInterface, QueryRunner } from 'typeorm';

/** An index built CONCURRENTLY: its name (to find what a failed build left) and its statement. */
interface ConcurrentIndex {
  name: string;
  create: string;
}

/** The new uniqueness: one pending or routed row per event. */
const liveRowOnce: ConcurrentIndex = {
  name: 'webhook_events_live_once',
  create: `CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS webhook_events_live_once
           ON webhook.webhook_events (source, external_event_id)
        WHERE signature_valid AND processing_result IN ('pending', 'success') AND external_event_id IS NOT NULL`,
};

/** An event's failed deliveries. */
const failedDeliveries: ConcurrentIndex = {
  name: 'webhook_events_failed_idx',
  create: `CREATE INDEX CONCURRENTLY IF NOT EXISTS webhook_events_failed_idx
           ON webhook.webhook_events (source, external_event_id)
        WHERE signature_valid AND processing_result = 'failed' AND external_event_id IS NOT NULL`,
};

/** The uniqueness it replaces (1764200000000), for `down`. */
const onceBeforeDeliveryRows: ConcurrentIndex = {
  name: 'webhook_events_once',
  create: `CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS webhook_events_once
           ON webhook.webhook_events (source, external_event_id)
        WHERE signature_valid AND processing_result <> 'duplicate' AND external_event_id IS NOT NULL`,
};

/**
 * The spec's uniqueness of (source, external_event_id) now holds for the row that carries the event
 * now: the one being routed (`pending`) or routed (`success`). Failed deliveries fall out of it, so
 * the next delivery of the event adds its own row and the failed one keeps its error.
 *
 * A second partial index finds an event's failed deliveries: for the operator tools (every attempt
 * of an event) and for retention (a failed delivery of an event routed since is final).
 *
 * Built CONCURRENTLY, outside a transaction, as the retention index was (1765100000001): inserts into
 * the table go on meanwhile. An index a failed build left invalid is dropped and built again. The new
 * unique index exists before the old one goes, so the event is never without one.
 */
export class WebhookLiveRowIndex1765300000001 implements MigrationInterface {
  name = 'WebhookLiveRowIndex1765300000001';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    await buildConcurrently(queryRunner, liveRowOnce);
    await buildConcurrently(queryRunner, failedDeliveries);
    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS webhook.webhook_events_once`);
  }

  /** Fails while an event has more than one failed delivery: the old index allowed one row. */
  async down(queryRunner: QueryRunner): Promise<void> {
    await buildConcurrently(queryRunner, onceBeforeDeliveryRows);
    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS webhook.webhook_events_failed_idx`);
    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS webhook.webhook_events_live_once`);
  }
}

async function buildConcurrently(queryRunner: QueryRunner, { name, create }: ConcurrentIndex): Promise<void> {
  const invalid = (await queryRunner.query(
    `SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
                             JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'webhook' AND c.relname = $1 AND NOT i.indisvalid`,
    [name],
  )) as unknown[];
  if (invalid.length > 0) await queryRunner.query(`DROP INDEX CONCURRENTLY webhook.${name}`);
  await queryRunner.query(create);
}
