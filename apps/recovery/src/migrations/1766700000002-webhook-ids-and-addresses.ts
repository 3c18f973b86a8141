import { StatementMigration } from '@lib/database';

/**
 * A restore that makes a webhook anew records its new id like a role's (`webhook`), and keeps the
 * new webhook's address on its job (`new_webhooks`, by the snapshot's webhook id): an address is a
 * credential, kept in this database only and shown on the job to the guild's owner.
 */
export class WebhookIdsAndAddresses1766700000002 extends StatementMigration {
  name = 'WebhookIdsAndAddresses1766700000002';

  protected readonly upStatements = [
    `ALTER TABLE recovery.platform_id_replacements DROP CONSTRAINT platform_id_replacements_kind_check`,
    `
      ALTER TABLE recovery.platform_id_replacements
        ADD CONSTRAINT platform_id_replacements_kind_check
          CHECK (kind IN ('role', 'channel', 'emoji', 'sticker', 'image', 'automod_rule', 'webhook'))`,
    `ALTER TABLE recovery.restore_jobs ADD COLUMN new_webhooks jsonb NOT NULL DEFAULT '{}'::jsonb`,
  ];

  protected readonly downStatements = [
    `ALTER TABLE recovery.restore_jobs DROP COLUMN new_webhooks`,
    `DELETE FROM recovery.platform_id_replacements WHERE kind = 'webhook'`,
    `ALTER TABLE recovery.platform_id_replacements DROP CONSTRAINT platform_id_replacements_kind_check`,
    `
      ALTER TABLE recovery.platform_id_replacements
        ADD CONSTRAINT platform_id_replacements_kind_check
          CHECK (kind IN ('role', 'channel', 'emoji', 'sticker', 'image', 'automod_rule'))`,
  ];
}
