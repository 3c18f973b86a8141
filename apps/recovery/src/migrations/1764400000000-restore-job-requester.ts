import { StatementMigration } from '@lib/database';

/**
 * The requester's platform user id on the job, so `RestoreCompleted` and `RestoreFailed` name the
 * DM's recipient and the notifier never asks who that is. Jobs from before have none (null).
 */
export class RestoreJobRequester1764400000000 extends StatementMigration {
  name = 'RestoreJobRequester1764400000000';

  protected readonly upStatements = [
    `ALTER TABLE recovery.restore_jobs ADD COLUMN requested_by_platform_user_id text`,
  ];

  protected readonly downStatements = [
    `ALTER TABLE recovery.restore_jobs DROP COLUMN requested_by_platform_user_id`,
  ];
}
