import { StatementMigration } from '@lib/database';

/**
 * A pending attempt is a renewal's claim: while one is in flight nobody starts another charge for
 * the subscription (docs/behaviour.md §2.6). The renewal job checks it after locking the
 * subscription; the database now refuses a second pending attempt too, so a claim that raced
 * another replica fails instead of charging the card twice. Creating the index fails if two
 * attempts of a subscription are pending already: settle them (reconcile with the provider) first.
 */
export class OnePendingChargePerSubscription1765500000000 extends StatementMigration {
  name = 'OnePendingChargePerSubscription1765500000000';

  protected readonly upStatements = [
    `
      CREATE UNIQUE INDEX payment_attempts_one_pending_idx ON billing.payment_attempts (subscription_id)
       WHERE status = 'pending'`,
  ];

  protected readonly downStatements = [`DROP INDEX billing.payment_attempts_one_pending_idx`];
}
