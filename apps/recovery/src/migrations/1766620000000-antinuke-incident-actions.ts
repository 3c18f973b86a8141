import { StatementMigration } from '@lib/database';

/**
 * AntiNuke incidents for every raid it weighs: `action` takes each destructive action kind, `mixed`
 * (no kind made more than half of the score), and the bot's removal or its loss of the audit log.
 * `actor_platform_user_id` may be null: removed from a guild, the bot can no longer read its audit
 * log to learn who removed it.
 */
export class AntiNukeIncidentActions1766620000000 extends StatementMigration {
  name = 'AntiNukeIncidentActions1766620000000';

  protected readonly upStatements = [
    `ALTER TABLE recovery.antinuke_incidents DROP CONSTRAINT antinuke_incidents_action_check`,
    `ALTER TABLE recovery.antinuke_incidents ADD CONSTRAINT antinuke_incidents_action_check CHECK (action IN (
      'channel_delete', 'role_delete', 'member_ban', 'member_kick', 'member_prune', 'permission_grant',
      'dangerous_role_grant', 'member_role_remove', 'channel_overwrite', 'webhook_create', 'bot_add',
      'vanity_url_change', 'emoji_delete', 'sticker_delete', 'mixed', 'bot_removed', 'bot_audit_log_lost'))`,
    `ALTER TABLE recovery.antinuke_incidents ALTER COLUMN actor_platform_user_id DROP NOT NULL`,
  ];

  protected readonly downStatements = [
    `ALTER TABLE recovery.antinuke_incidents ALTER COLUMN actor_platform_user_id SET NOT NULL`,
    `ALTER TABLE recovery.antinuke_incidents DROP CONSTRAINT antinuke_incidents_action_check`,
    `ALTER TABLE recovery.antinuke_incidents ADD CONSTRAINT antinuke_incidents_action_check
      CHECK (action IN ('channel_delete', 'role_delete', 'member_ban', 'member_kick'))`,
  ];
}
