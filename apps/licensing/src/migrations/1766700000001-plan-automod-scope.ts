import { StatementMigration } from '@lib/database';

/** The paid plans restore the guild's AutoMod rules too (scope `automod`); the CHECK is widened by name. */
export class PlanAutoModScope1766700000001 extends StatementMigration {
  name = 'PlanAutoModScope1766700000001';

  protected readonly upStatements = [
    `ALTER TABLE licensing.plans DROP CONSTRAINT plans_restore_scopes_known`,
    `
      ALTER TABLE licensing.plans
        ADD CONSTRAINT plans_restore_scopes_known CHECK (
          restore_scopes <@ ARRAY['roles', 'channels', 'permission_overrides', 'guild_settings',
                                  'member_roles', 'bans', 'emojis', 'stickers', 'guild_images',
                                  'automod']::text[]
        )`,
    `
      UPDATE licensing.plans
         SET restore_scopes = restore_scopes || '{automod}'::text[]
       WHERE code IN ('PRO', 'ENTERPRISE')`,
  ];

  protected readonly downStatements = [
    `UPDATE licensing.plans SET restore_scopes = array_remove(restore_scopes, 'automod')`,
    `ALTER TABLE licensing.plans DROP CONSTRAINT plans_restore_scopes_known`,
    `
      ALTER TABLE licensing.plans
        ADD CONSTRAINT plans_restore_scopes_known CHECK (
          restore_scopes <@ ARRAY['roles', 'channels', 'permission_overrides', 'guild_settings',
                                  'member_roles', 'bans', 'emojis', 'stickers', 'guild_images']::text[]
        )`,
  ];
}
