import type { MigrationInterface, QueryRunner } from 'typeorm';

/** docs/architecture.md: `identity.users` maps our user id (UUID v7) to the platform's user id. */
export class Users1764500000000 implements MigrationInterface {
  name = 'Users1764500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE identity.users (
        id uuid PRIMARY KEY,
        platform_user_id text NOT NULL UNIQUE,
        username text NOT NULL,
        global_name text,
        avatar text,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_login_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE identity.users`);
  }
}
