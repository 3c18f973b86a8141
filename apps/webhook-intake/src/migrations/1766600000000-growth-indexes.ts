import { ConcurrentIndexMigration } from '@lib/database';

/**
 * The operator tools list webhook events newest first, by source and result, but both filters are
 * optional, and the source is the leading column of both indexes that order the list
 * (1764200000000: `(source, created_at, id)` and `(source, processing_result, created_at, id)`).
 * Without a source, Postgres cannot use them for the order, so the list read the whole table and
 * sorted it: at 5 million rows (`npm run bench:growth`) a page took seconds instead of a
 * millisecond, and a page filtered by a rare result (`pending`) likewise. These two indexes give
 * both unfiltered and result-only lists a bounded range, first page or a year back.
 *
 * The retention job deletes in batches of 1,000, oldest change first, by kind. For failed deliveries
 * superseded by a routed one, no index gave the failed rows in `updated_at` order, so each batch
 * checked every failed delivery in the table against the routed rows (a hash join over a scan of the
 * whole table: 82 ms a batch of 100 at 100,000 rows, growing with the table). For duplicates, the
 * retention index (1765100000001) holds every final row, so a batch walked ~33 final rows per
 * duplicate it found (duplicates are a few per cent of the rows). A partial index on each kind, in
 * `updated_at` order, makes a batch read about the rows it deletes; only the rows of that kind
 * (a few per cent of the inserts) pay for them.
 *
 * Built CONCURRENTLY (ConcurrentIndexMigration), as the table's other late indexes were
 * (1765100000001, 1765300000001): the endpoint's inserts go on meanwhile.
 */
export class WebhookGrowthIndexes1766600000000 extends ConcurrentIndexMigration {
  name = 'WebhookGrowthIndexes1766600000000';

  protected readonly indexes = [
    // The operator tools' newest-first list without a source.
    {
      schema: 'webhook',
      name: 'webhook_events_created_idx',
      on: 'webhook_events (created_at DESC, id DESC)',
    },
    // The same list filtered by result, without a source.
    {
      schema: 'webhook',
      name: 'webhook_events_result_created_idx',
      on: 'webhook_events (processing_result, created_at DESC, id DESC)',
    },
    // The retention job's duplicates, oldest change first.
    {
      schema: 'webhook',
      name: 'webhook_events_duplicate_updated_idx',
      on: `webhook_events (updated_at) WHERE processing_result = 'duplicate'`,
    },
    // The retention job's failed deliveries (of events routed since), oldest change first.
    {
      schema: 'webhook',
      name: 'webhook_events_failed_updated_idx',
      on: `webhook_events (updated_at)
        WHERE signature_valid AND processing_result = 'failed' AND external_event_id IS NOT NULL`,
    },
  ];
}
