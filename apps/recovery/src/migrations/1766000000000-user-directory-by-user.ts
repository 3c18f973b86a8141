import { StatementMigration } from '@lib/database';

/**
 * The directory is also read by our user id (`GET /api/v1/guilds/{id}/member-names` maps the users
 * an audit entry names to their platform users), up to 50 at a time.
 */
export class UserDirectoryByUser1766000000000 extends StatementMigration {
  name = 'UserDirectoryByUser1766000000000';

  protected readonly upStatements = [
    `CREATE INDEX user_directory_user_id ON recovery.user_directory (user_id)`,
  ];

  protected readonly downStatements = [`DROP INDEX recovery.user_directory_user_id`];
}
