import { StatementMigration } from '@lib/database';

/**
 * The plan catalogue (docs/decisions/plans.md) and one licence row per guild. Plan ids are fixed
 * so that every environment agrees on them; a price or feature change is a new migration.
 */
export class PlansAndLicenses1763900000000 extends StatementMigration {
  name = 'PlansAndLicenses1763900000000';

  protected readonly upStatements = [
    `
      CREATE TABLE licensing.plans (
        id uuid PRIMARY KEY,
        code text NOT NULL UNIQUE CHECK (code IN ('FREE', 'PRO', 'ENTERPRISE')),
        rank smallint NOT NULL UNIQUE CHECK (rank >= 0),
        name text NOT NULL,
        price_krw integer NOT NULL CHECK (price_krw >= 0),
        features text[] NOT NULL,
        snapshot_manual_max integer NOT NULL CHECK (snapshot_manual_max >= 0),
        scheduled_snapshot_retention_days integer CHECK (scheduled_snapshot_retention_days > 0),
        created_at timestamptz NOT NULL DEFAULT now()
      )`,
    `
      INSERT INTO licensing.plans
        (id, code, rank, name, price_krw, features, snapshot_manual_max, scheduled_snapshot_retention_days)
      VALUES
        ('01a20182-341a-746b-962f-fea7042fc7a7', 'FREE', 0, 'Free', 0, '{}', 0, NULL),
        ('01a20182-341c-71f6-8123-2dd7bc7829d8', 'PRO', 1, 'Pro', 9900,
         '{RECOVERY_RESTORE,RECOVERY_SNAPSHOT_MANUAL,RECOVERY_SNAPSHOT_SCHEDULED,RECOVERY_LIVE_SYNC}', 1, 7),
        ('01a20182-341c-71f6-8123-3135cd065215', 'ENTERPRISE', 2, 'Enterprise', 29900,
         '{RECOVERY_RESTORE,RECOVERY_SNAPSHOT_MANUAL,RECOVERY_SNAPSHOT_SCHEDULED,RECOVERY_LIVE_SYNC,ANTINUKE_DETECT,ANTINUKE_AUTO_ACTION}',
         3, 30)`,
    // last_event_at/last_event_id: the newest billing event applied, so an older one arriving
    // late (redelivery, a second relay) is recognised and ignored.
    `
      CREATE TABLE licensing.licenses (
        id uuid PRIMARY KEY,
        guild_id uuid NOT NULL UNIQUE,
        plan_id uuid NOT NULL REFERENCES licensing.plans (id),
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active')),
        expires_at timestamptz,
        subscription_id uuid,
        last_event_at timestamptz NOT NULL,
        last_event_id uuid NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`,
  ];

  protected readonly downStatements = [`DROP TABLE licensing.licenses`, `DROP TABLE licensing.plans`];
}
