import { StatementMigration } from '@lib/database';

/** A restore that makes an AutoMod rule anew records its new id like a role's (`automod_rule`). */
export class AutoModRuleIds1766700000001 extends StatementMigration {
  name = 'AutoModRuleIds1766700000001';

  protected readonly upStatements = [
    `ALTER TABLE recovery.platform_id_replacements DROP CONSTRAINT platform_id_replacements_kind_check`,
    `
      ALTER TABLE recovery.platform_id_replacements
        ADD CONSTRAINT platform_id_replacements_kind_check
          CHECK (kind IN ('role', 'channel', 'emoji', 'sticker', 'image', 'automod_rule'))`,
  ];

  protected readonly downStatements = [
    `DELETE FROM recovery.platform_id_replacements WHERE kind = 'automod_rule'`,
    `ALTER TABLE recovery.platform_id_replacements DROP CONSTRAINT platform_id_replacements_kind_check`,
    `
      ALTER TABLE recovery.platform_id_replacements
        ADD CONSTRAINT platform_id_replacements_kind_check
          CHECK (kind IN ('role', 'channel', 'emoji', 'sticker', 'image'))`,
  ];
}
