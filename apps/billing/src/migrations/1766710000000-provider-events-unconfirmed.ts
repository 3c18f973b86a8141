import { StatementMigration } from '@lib/database';

/**
 * A Toss delivery (`lookup` mode) the provider does not confirm (it knows no such payment) is
 * recorded as `unconfirmed`: nothing was applied, and a repeat is answered the same from the
 * record. The check constraint gains that outcome; NOT VALID then VALIDATE keeps the table
 * writable while the existing rows are checked.
 */
export class ProviderEventsUnconfirmed1766710000000 extends StatementMigration {
  name = 'ProviderEventsUnconfirmed1766710000000';

  protected readonly upStatements = [
    `ALTER TABLE billing.provider_events DROP CONSTRAINT provider_events_outcome_check`,
    `ALTER TABLE billing.provider_events ADD CONSTRAINT provider_events_outcome_check
       CHECK (outcome IN ('applied', 'already_applied', 'ignored', 'unconfirmed')) NOT VALID`,
    `ALTER TABLE billing.provider_events VALIDATE CONSTRAINT provider_events_outcome_check`,
  ];

  protected readonly downStatements = [
    `DELETE FROM billing.provider_events WHERE outcome = 'unconfirmed'`,
    `ALTER TABLE billing.provider_events DROP CONSTRAINT provider_events_outcome_check`,
    `ALTER TABLE billing.provider_events ADD CONSTRAINT provider_events_outcome_check
       CHECK (outcome IN ('applied', 'already_applied', 'ignored'))`,
  ];
}
