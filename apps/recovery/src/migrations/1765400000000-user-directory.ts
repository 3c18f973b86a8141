import { StatementMigration } from '@lib/database';

/**
 * Which service user (identity.users id, vouched for by the gateway's internal token) a platform
 * user is. Recovery may not read the gateway's schema, yet a slash command names only the platform
 * user: this lets its snapshot record the same `created_by_user` as one taken on the dashboard.
 */
export class UserDirectory1765400000000 extends StatementMigration {
  name = 'UserDirectory1765400000000';

  protected readonly upStatements = [
    `
      CREATE TABLE recovery.user_directory (
        platform_user_id text PRIMARY KEY CHECK (platform_user_id ~ '^[0-9]{1,20}$'),
        user_id uuid NOT NULL,
        seen_at timestamptz NOT NULL DEFAULT now()
      )`,
  ];

  protected readonly downStatements = [`DROP TABLE recovery.user_directory`];
}
