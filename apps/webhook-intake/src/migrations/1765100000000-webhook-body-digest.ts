import { StatementMigration } from '@lib/database';

/**
 * A request refused for its signature is anyone's bytes, so only a description of them is kept: the
 * size (`body_bytes`, already there), the SHA-256 and the first 4 KiB, never the body itself.
 *
 * The excerpt is bytea, not text: a forged body can be any bytes (not UTF-8, NUL, a character cut at
 * byte 4096), and bytea holds exactly what arrived, so the excerpt, the digest and the size agree.
 *
 * The constraints are NOT VALID: they hold for every row written from now on. Rows refused before
 * this migration still carry their bodies until the retention job removes them, and validating
 * would scan the whole table under an exclusive lock.
 */
export class WebhookBodyDigest1765100000000 extends StatementMigration {
  name = 'WebhookBodyDigest1765100000000';

  protected readonly upStatements = [
    `
      ALTER TABLE webhook.webhook_events
        ADD COLUMN body_sha256 text,
        ADD COLUMN body_excerpt bytea`,
    `
      ALTER TABLE webhook.webhook_events
        ADD CONSTRAINT webhook_events_body_sha256_hex CHECK (body_sha256 ~ '^[0-9a-f]{64}$') NOT VALID,
        ADD CONSTRAINT webhook_events_body_excerpt_4k CHECK (octet_length(body_excerpt) <= 4096) NOT VALID,
        ADD CONSTRAINT webhook_events_forged_body_not_kept
          CHECK (signature_valid OR (payload IS NULL AND raw_body IS NULL)) NOT VALID`,
  ];

  protected readonly downStatements = [
    `
      ALTER TABLE webhook.webhook_events
        DROP CONSTRAINT webhook_events_forged_body_not_kept,
        DROP COLUMN body_excerpt,
        DROP COLUMN body_sha256`,
  ];
}
