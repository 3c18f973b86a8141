import { processedEventsTableSql } from '@lib/messaging';
import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Init1763800000000 implements MigrationInterface {
  name = 'Init1763800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const sql of processedEventsTableSql('notification')) await queryRunner.query(sql);
    await queryRunner.query(`
      CREATE TABLE notification.audit_log (
        event_id uuid PRIMARY KEY,
        event_type text NOT NULL,
        producer text NOT NULL,
        guild_id text NOT NULL,
        aggregate_type text NOT NULL,
        aggregate_id text NOT NULL,
        occurred_at timestamptz NOT NULL,
        correlation_id text,
        payload jsonb NOT NULL,
        recorded_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(
      `CREATE INDEX audit_log_guild_idx ON notification.audit_log (guild_id, occurred_at DESC, event_id DESC)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE notification.audit_log`);
    await queryRunner.query(`DROP TABLE notification.processed_events`);
  }
}
