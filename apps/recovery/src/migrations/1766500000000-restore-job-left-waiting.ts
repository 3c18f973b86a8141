import { StatementMigration } from '@lib/database';

/**
 * `restore_jobs.left_waiting`: what an in-process restore run waiting for the platform (a creation
 * quota of up to 48 hours) left when its process stopped gracefully, a RestoreResume (the wait,
 * the progress, the counts so far). The job stays `running`; the next start takes the run up from
 * it and clears it.
 */
export class RestoreJobLeftWaiting1766500000000 extends StatementMigration {
  name = 'RestoreJobLeftWaiting1766500000000';

  protected readonly upStatements = [`ALTER TABLE recovery.restore_jobs ADD COLUMN left_waiting jsonb`];

  protected readonly downStatements = [`ALTER TABLE recovery.restore_jobs DROP COLUMN left_waiting`];
}
