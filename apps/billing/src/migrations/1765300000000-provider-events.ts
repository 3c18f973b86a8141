import { StatementMigration } from '@lib/database';

/**
 * The provider events billing has applied, by the provider's event id. Webhook intake delivers at
 * least once (a routing whose answer was lost is routed again), so billing answers an event it has
 * already applied from this record instead of acting on it twice. A refused event (malformed data)
 * is not recorded: after a fix, its resend is applied.
 *
 * One small row per provider event (a few per subscription and month); nothing deletes them.
 */
export class ProviderEvents1765300000000 extends StatementMigration {
  name = 'ProviderEvents1765300000000';

  protected readonly upStatements = [
    `
      CREATE TABLE billing.provider_events (
        event_id text PRIMARY KEY,
        event_type text NOT NULL,
        -- What applying it did: applied, already_applied (the charge answer got there first), ignored.
        outcome text NOT NULL CHECK (outcome IN ('applied', 'already_applied', 'ignored')),
        detail text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`,
  ];

  protected readonly downStatements = [`DROP TABLE billing.provider_events`];
}
