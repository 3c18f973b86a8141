import { StatementMigration } from '@lib/database';

/**
 * A payment attempt now has a purpose: `period` pays a billing cycle (the first charge, a renewal
 * and its retries), `upgrade` pays the prorated difference of a higher plan for the rest of the
 * current cycle (README, "Where the product departs from the spec"). An upgrade's cycle is the one
 * it pays into, so its (cycle, retry) pairs would collide with that cycle's renewal attempts: the
 * uniqueness now includes the purpose. `plan_code` of an upgrade attempt is the plan it buys.
 */
export class UpgradePayments1766720000000 extends StatementMigration {
  name = 'UpgradePayments1766720000000';

  protected readonly upStatements = [
    `
      ALTER TABLE billing.payment_attempts
        ADD COLUMN purpose text NOT NULL DEFAULT 'period' CHECK (purpose IN ('period', 'upgrade'))`,
    `
      ALTER TABLE billing.payment_attempts
        DROP CONSTRAINT payment_attempts_subscription_id_cycle_retry_number_key`,
    `
      ALTER TABLE billing.payment_attempts
        ADD CONSTRAINT payment_attempts_purpose_cycle_retry_key
        UNIQUE (subscription_id, purpose, cycle, retry_number)`,
  ];

  protected readonly downStatements = [
    `DELETE FROM billing.payment_attempts WHERE purpose = 'upgrade'`,
    `
      ALTER TABLE billing.payment_attempts DROP CONSTRAINT payment_attempts_purpose_cycle_retry_key`,
    `
      ALTER TABLE billing.payment_attempts
        ADD CONSTRAINT payment_attempts_subscription_id_cycle_retry_number_key
        UNIQUE (subscription_id, cycle, retry_number)`,
    `ALTER TABLE billing.payment_attempts DROP COLUMN purpose`,
  ];
}
