import { StatementMigration } from '@lib/database';

/**
 * Every delivery is a row of its own, with its own outcome and error (docs/behaviour.md §1.4, §2.8): a resend
 * after a failed routing, the takeover of an abandoned one and an operator's reprocess each add a
 * row instead of reusing the earlier one (the index that lets them follows in 1765300000001).
 *
 * - `body_text`: the signed body exactly as received (docs/behaviour.md §9.3), beside `payload`, its parsed form.
 *   jsonb keeps neither key order nor integers above 2^53. A body that is not UTF-8 text Postgres can
 *   hold (invalid UTF-8, a NUL byte) stays in `raw_body` (bytea) instead; one of the two is set.
 * - `reprocess_of`: the row an operator asked to reprocess, on the row of that attempt. Not a
 *   foreign key: retention may delete the row it names first.
 *
 * As for the forged bodies before (1765100000000), a request refused for its signature keeps no
 * body text; NOT VALID, so the constraint is added without scanning the table.
 */
export class WebhookDeliveryRows1765300000000 extends StatementMigration {
  name = 'WebhookDeliveryRows1765300000000';

  protected readonly upStatements = [
    `
      ALTER TABLE webhook.webhook_events
        ADD COLUMN body_text text,
        ADD COLUMN reprocess_of uuid`,
    `
      ALTER TABLE webhook.webhook_events
        ADD CONSTRAINT webhook_events_forged_body_text_not_kept
          CHECK (signature_valid OR body_text IS NULL) NOT VALID`,
  ];

  protected readonly downStatements = [
    `
      ALTER TABLE webhook.webhook_events
        DROP CONSTRAINT webhook_events_forged_body_text_not_kept,
        DROP COLUMN reprocess_of,
        DROP COLUMN body_text`,
  ];
}
