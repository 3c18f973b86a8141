import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A scheduled cancel takes priority over a pending downgrade (docs/behaviour.md appendix rule 4): a cancel now
 * clears the downgrade, and an uncancel does not bring it back. Rows canceled before that kept
 * both; they are cleared here, and the database refuses the pair from now on.
 */
export class CancelClearsPendingDowngrade1765400000000 implements MigrationInterface {
  name = 'CancelClearsPendingDowngrade1765400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      UPDATE billing.subscriptions SET pending_downgrade_to = NULL, updated_at = now()
       WHERE cancel_at_period_end AND pending_downgrade_to IS NOT NULL`);
    await queryRunner.query(`
      ALTER TABLE billing.subscriptions ADD CONSTRAINT subscriptions_cancel_wins_over_downgrade
        CHECK (NOT (cancel_at_period_end AND pending_downgrade_to IS NOT NULL))`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE billing.subscriptions DROP CONSTRAINT subscriptions_cancel_wins_over_downgrade`,
    );
  }
}
