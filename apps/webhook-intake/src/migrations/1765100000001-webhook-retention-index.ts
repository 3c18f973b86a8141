import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The retention job's path to the rows it may delete, oldest change first. Partial, on exactly the
 * rows in a final state (the job's queries repeat this predicate), so pending and failed rows, which
 * it never deletes, cost it nothing.
 *
 * Built CONCURRENTLY, outside a transaction: the table is the one forged requests filled, and a
 * plain CREATE INDEX would block the webhook endpoint's inserts for as long as the build takes. A
 * build that failed halfway leaves an invalid index behind; it is dropped and built again.
 */
export class WebhookRetentionIndex1765100000001 implements MigrationInterface {
  name = 'WebhookRetentionIndex1765100000001';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    const invalid = (await queryRunner.query(`
      SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
                               JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = 'webhook' AND c.relname = 'webhook_events_retention_idx' AND NOT i.indisvalid`)) as unknown[];
    if (invalid.length > 0) {
      await queryRunner.query(`DROP INDEX CONCURRENTLY webhook.webhook_events_retention_idx`);
    }
    await queryRunner.query(`
      CREATE INDEX CONCURRENTLY IF NOT EXISTS webhook_events_retention_idx
          ON webhook.webhook_events (updated_at)
       WHERE processing_result IN ('success', 'duplicate') OR NOT signature_valid`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS webhook.webhook_events_retention_idx`);
  }
}
