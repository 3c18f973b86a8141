import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Which service user (identity.users id, vouched for by the gateway's internal token) a platform
 * user is. Recovery may not read the gateway's schema, yet a slash command names only the platform
 * user: this lets its snapshot record the same `created_by_user` as one taken on the dashboard.
 */
export class UserDirectory1765400000000 implements MigrationInterface {
  name = 'UserDirectory1765400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE recovery.user_directory (
        platform_user_id text PRIMARY KEY CHECK (platform_user_id ~ '^[0-9]{1,20}$'),
        user_id uuid NOT NULL,
        seen_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE recovery.user_directory`);
  }
}
