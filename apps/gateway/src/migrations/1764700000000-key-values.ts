import { dropKeyValueTableSql, keyValueTableSql } from '@lib/key-value';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Sessions, OAuth states and rate-limit counters when no REDIS_URL is set (standalone mode). */
export class KeyValues1764700000000 implements MigrationInterface {
  name = 'KeyValues1764700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const sql of keyValueTableSql('identity')) await queryRunner.query(sql);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const sql of dropKeyValueTableSql('identity')) await queryRunner.query(sql);
  }
}
