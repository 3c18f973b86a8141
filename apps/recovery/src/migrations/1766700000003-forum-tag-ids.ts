import { StatementMigration } from '@lib/database';

/**
 * A restore that makes a forum anew, or gives a forum back a tag it lost, records each tag's new id
 * like a role's (`forum_tag`): other bots (auto-taggers, ticket bots) name tags by id.
 */
export class ForumTagIds1766700000003 extends StatementMigration {
  name = 'ForumTagIds1766700000003';

  protected readonly upStatements = [
    `ALTER TABLE recovery.platform_id_replacements DROP CONSTRAINT platform_id_replacements_kind_check`,
    `
      ALTER TABLE recovery.platform_id_replacements
        ADD CONSTRAINT platform_id_replacements_kind_check
          CHECK (kind IN ('role', 'channel', 'emoji', 'sticker', 'image', 'automod_rule', 'webhook',
                          'forum_tag'))`,
  ];

  protected readonly downStatements = [
    `DELETE FROM recovery.platform_id_replacements WHERE kind = 'forum_tag'`,
    `ALTER TABLE recovery.platform_id_replacements DROP CONSTRAINT platform_id_replacements_kind_check`,
    `
      ALTER TABLE recovery.platform_id_replacements
        ADD CONSTRAINT platform_id_replacements_kind_check
          CHECK (kind IN ('role', 'channel', 'emoji', 'sticker', 'image', 'automod_rule', 'webhook'))`,
  ];
}
