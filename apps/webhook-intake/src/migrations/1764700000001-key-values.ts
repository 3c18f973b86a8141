import { dropKeyValueTableSql, keyValueTableSql } from '@lib/key-value';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Webhook idempotency keys when no REDIS_URL is set (standalone mode). */
export class KeyValues1764700000001 implements MigrationInterface {
  name = 'KeyValues1764700000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const sql of keyValueTableSql('webhook')) await queryRunner.query(sql);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const sql of dropKeyValueTableSql('webhook')) await queryRunner.query(sql);
  }
}
