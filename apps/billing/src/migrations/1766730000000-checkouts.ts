import { StatementMigration } from '@lib/database';

/**
 * A checkout the dashboard started (`prepare`), so that a confirm can prove it is that checkout's
 * and nobody else's: the provider's return address carries only the checkout's id, and confirm
 * refuses an id that is unknown, another user's, for another guild, plan or customer key, expired
 * or already used (docs/behaviour.md §4.5). `used_at` is set once, by the confirm that takes it,
 * under the row's lock: a second confirm of the same checkout is refused before the provider is
 * called. One small row per prepare; an expired one is never used again.
 */
export class Checkouts1766730000000 extends StatementMigration {
  name = 'Checkouts1766730000000';

  protected readonly upStatements = [
    `
      CREATE TABLE billing.checkouts (
        id uuid PRIMARY KEY,
        user_id uuid NOT NULL,
        guild_id uuid NOT NULL,
        plan_code text NOT NULL,
        customer_key text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        used_at timestamptz,
        CHECK (expires_at > created_at)
      )`,
    // The retention sweep's batches, oldest expiry first (billing-retention.ts).
    `CREATE INDEX checkouts_expires_at_idx ON billing.checkouts (expires_at)`,
  ];

  protected readonly downStatements = [`DROP TABLE billing.checkouts`];
}
