import { dropOutboxTableSql, outboxTableSql } from '@lib/outbox';
import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Init1763800000000 implements MigrationInterface {
  name = 'Init1763800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const sql of outboxTableSql('billing')) await queryRunner.query(sql);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const sql of dropOutboxTableSql('billing')) await queryRunner.query(sql);
  }
}
