import { StatementMigration } from '@lib/database';

/** docs/decisions/users.md: `identity.users` maps our user id (UUID v7) to the platform's user id. */
export class Users1764500000000 extends StatementMigration {
  name = 'Users1764500000000';

  protected readonly upStatements = [
    `
      CREATE TABLE identity.users (
        id uuid PRIMARY KEY,
        platform_user_id text NOT NULL UNIQUE,
        username text NOT NULL,
        global_name text,
        avatar text,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_login_at timestamptz NOT NULL DEFAULT now()
      )`,
  ];

  protected readonly downStatements = [`DROP TABLE identity.users`];
}
