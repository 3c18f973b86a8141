import { StatementMigration } from '@lib/database';

/**
 * A charge whose outcome is unknown stays pending and is settled by asking the provider
 * (docs/behaviour.md, "Reading a charge's outcome"): `next_check_at` is when the next look-up is
 * due (null: `PAYMENT_RECONCILE_AFTER_MS` after the attempt was created), `check_count` how many
 * were made (the back-off doubles with it), `unsettled_alerted_at` when the operator was told it
 * stays unsettled. `receipt_url`: the provider's receipt page of an approved charge.
 */
export class PaymentAttemptChecks1766700000000 extends StatementMigration {
  name = 'PaymentAttemptChecks1766700000000';

  protected readonly upStatements = [
    `
      ALTER TABLE billing.payment_attempts
        ADD COLUMN receipt_url text CHECK (char_length(receipt_url) <= 2000),
        ADD COLUMN next_check_at timestamptz,
        ADD COLUMN check_count integer NOT NULL DEFAULT 0 CHECK (check_count >= 0),
        ADD COLUMN unsettled_alerted_at timestamptz`,
  ];

  protected readonly downStatements = [
    `
      ALTER TABLE billing.payment_attempts
        DROP COLUMN unsettled_alerted_at,
        DROP COLUMN check_count,
        DROP COLUMN next_check_at,
        DROP COLUMN receipt_url`,
  ];
}
