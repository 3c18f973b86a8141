import { StatementMigration } from '@lib/database';

/**
 * Subscriptions created before billing asked licensing for the licence id carry none; the jobs
 * attach it (docs/behaviour.md §6: events name the licence). This index keeps that look-up cheap on every tick
 * once none are left.
 */
export class SubscriptionsWithoutLicense1765400000001 extends StatementMigration {
  name = 'SubscriptionsWithoutLicense1765400000001';

  protected readonly upStatements = [
    `
      CREATE INDEX subscriptions_without_license_idx ON billing.subscriptions (created_at)
        WHERE license_id IS NULL AND status IN ('pending', 'active', 'past_due')`,
  ];

  protected readonly downStatements = [`DROP INDEX billing.subscriptions_without_license_idx`];
}
