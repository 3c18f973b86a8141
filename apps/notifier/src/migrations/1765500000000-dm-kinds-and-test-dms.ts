import { StatementMigration } from '@lib/database';

/**
 * Restore and incident DMs can be turned off like payment DMs, and a user can ask for a
 * test DM. An incident DM names its recipient by platform id only (the owner may never have logged
 * in), so a preference row also records the platform id it was set by.
 */
export class DmKindsAndTestDms1765500000000 extends StatementMigration {
  name = 'DmKindsAndTestDms1765500000000';

  protected readonly upStatements = [
    `
      ALTER TABLE notification.notification_preferences
        ADD COLUMN restore_notifications boolean NOT NULL DEFAULT true,
        ADD COLUMN incident_notifications boolean NOT NULL DEFAULT true,
        ADD COLUMN platform_user_id text`,
    `
      CREATE UNIQUE INDEX notification_preferences_platform_user_idx
        ON notification.notification_preferences (platform_user_id) WHERE platform_user_id IS NOT NULL`,
    // The last test DM per user: at most one per interval (the notifier's TEST_DM_INTERVAL_SECONDS).
    `
      CREATE TABLE notification.test_dms (
        user_id uuid PRIMARY KEY,
        sent_at timestamptz NOT NULL
      )`,
  ];

  protected readonly downStatements = [
    `DROP TABLE notification.test_dms`,
    `DROP INDEX notification.notification_preferences_platform_user_idx`,
    `
      ALTER TABLE notification.notification_preferences
        DROP COLUMN restore_notifications,
        DROP COLUMN incident_notifications,
        DROP COLUMN platform_user_id`,
  ];
}
