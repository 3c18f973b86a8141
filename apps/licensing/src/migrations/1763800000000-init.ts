import { processedEventsTableSql } from '@lib/messaging';
import { dropOutboxTableSql, outboxTableSql } from '@lib/outbox';
import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Init1763800000000 implements MigrationInterface {
  name = 'Init1763800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const sql of [...outboxTableSql('licensing'), ...processedEventsTableSql('licensing')]) {
      await queryRunner.query(sql);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE licensing.processed_events`);
    for (const sql of dropOutboxTableSql('licensing')) await queryRunner.query(sql);
  }
}
