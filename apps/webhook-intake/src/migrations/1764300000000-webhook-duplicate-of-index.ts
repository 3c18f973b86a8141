import { StatementMigration } from '@lib/database';

/**
 * `duplicate_of` references the row that carried the event. Without an index, deleting (or
 * archiving) rows makes Postgres scan the whole table for referencing duplicates once per deleted
 * row. Partial: most rows are not duplicates, and the foreign-key check only ever looks up non-null
 * values, so only duplicates pay for the index.
 */
export class WebhookDuplicateOfIndex1764300000000 extends StatementMigration {
  name = 'WebhookDuplicateOfIndex1764300000000';

  protected readonly upStatements = [
    `
      CREATE INDEX webhook_events_duplicate_of_idx
          ON webhook.webhook_events (duplicate_of) WHERE duplicate_of IS NOT NULL`,
  ];

  protected readonly downStatements = [`DROP INDEX webhook.webhook_events_duplicate_of_idx`];
}
