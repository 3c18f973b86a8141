import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 25: restore and incident DMs can be turned off like payment DMs, and a user can ask for a
 * test DM. An incident DM names its recipient by platform id only (the owner may never have logged
 * in), so a preference row also records the platform id it was set by.
 */
export class DmKindsAndTestDms1765500000000 implements MigrationInterface {
  name = 'DmKindsAndTestDms1765500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE notification.notification_preferences
        ADD COLUMN restore_notifications boolean NOT NULL DEFAULT true,
        ADD COLUMN incident_notifications boolean NOT NULL DEFAULT true,
        ADD COLUMN platform_user_id text`);
    await queryRunner.query(`
      CREATE UNIQUE INDEX notification_preferences_platform_user_idx
        ON notification.notification_preferences (platform_user_id) WHERE platform_user_id IS NOT NULL`);
    // The last test DM per user: at most one per interval (the notifier's TEST_DM_INTERVAL_SECONDS).
    await queryRunner.query(`
      CREATE TABLE notification.test_dms (
        user_id uuid PRIMARY KEY,
        sent_at timestamptz NOT NULL
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE notification.test_dms`);
    await queryRunner.query(`DROP INDEX notification.notification_preferences_platform_user_idx`);
    await queryRunner.query(`
      ALTER TABLE notification.notification_preferences
        DROP COLUMN restore_notifications,
        DROP COLUMN incident_notifications,
        DROP COLUMN platform_user_id`);
  }
}
