import { StatementMigration } from '@lib/database';

/**
 * `grace_until`: a licence whose subscription renews stays in force past `expires_at` (the period
 * end) until then, through the renewal charge and its past_due retries
 * (docs/decisions/licence-through-renewals.md); null when the subscription ends at period end.
 *
 * A licence row may now exist before any billing event: billing reserves the guild's licence id at
 * checkout so that its events name it. Such a row is FREE and has applied no event yet.
 */
export class LicenseGraceAndReservedIds1765400000000 extends StatementMigration {
  name = 'LicenseGraceAndReservedIds1765400000000';

  protected readonly upStatements = [
    `ALTER TABLE licensing.licenses ADD COLUMN grace_until timestamptz`,
    `
      ALTER TABLE licensing.licenses
        ALTER COLUMN last_event_at DROP NOT NULL,
        ALTER COLUMN last_event_id DROP NOT NULL,
        ADD CONSTRAINT licenses_last_event_complete
          CHECK ((last_event_at IS NULL) = (last_event_id IS NULL))`,
  ];

  protected readonly downStatements = [
    `DELETE FROM licensing.licenses WHERE last_event_at IS NULL`,
    `
      ALTER TABLE licensing.licenses
        DROP CONSTRAINT licenses_last_event_complete,
        ALTER COLUMN last_event_at SET NOT NULL,
        ALTER COLUMN last_event_id SET NOT NULL,
        DROP COLUMN grace_until`,
  ];
}
