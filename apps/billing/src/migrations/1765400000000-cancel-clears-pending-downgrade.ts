import { StatementMigration } from '@lib/database';

/**
 * A scheduled cancel takes priority over a pending downgrade (docs/behaviour.md appendix rule 4): a cancel now
 * clears the downgrade, and an uncancel does not bring it back. Rows canceled before that kept
 * both; they are cleared here, and the database refuses the pair from now on.
 */
export class CancelClearsPendingDowngrade1765400000000 extends StatementMigration {
  name = 'CancelClearsPendingDowngrade1765400000000';

  protected readonly upStatements = [
    `
      UPDATE billing.subscriptions SET pending_downgrade_to = NULL, updated_at = now()
       WHERE cancel_at_period_end AND pending_downgrade_to IS NOT NULL`,
    `
      ALTER TABLE billing.subscriptions ADD CONSTRAINT subscriptions_cancel_wins_over_downgrade
        CHECK (NOT (cancel_at_period_end AND pending_downgrade_to IS NOT NULL))`,
  ];

  protected readonly downStatements = [
    `ALTER TABLE billing.subscriptions DROP CONSTRAINT subscriptions_cancel_wins_over_downgrade`,
  ];
}
