import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `duplicate_of` references the row that carried the event. Without an index, deleting (or
 * archiving) rows makes Postgres scan the whole table for referencing duplicates once per deleted
 * row. Partial: most rows are not duplicates, and the foreign-key check only ever looks up non-null
 * values, so only duplicates pay for the index.
 */
export class WebhookDuplicateOfIndex1764300000000 implements MigrationInterface {
  name = 'WebhookDuplicateOfIndex1764300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE INDEX webhook_events_duplicate_of_idx
          ON webhook.webhook_events (duplicate_of) WHERE duplicate_of IS NOT NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX webhook.webhook_events_duplicate_of_idx`);
  }
}
