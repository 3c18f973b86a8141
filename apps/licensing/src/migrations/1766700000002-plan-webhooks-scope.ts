import { StatementMigration } from '@lib/database';

/** The paid plans restore the guild's webhooks too (scope `webhooks`); the CHECK is widened by name. */
export class PlanWebhooksScope1766700000002 extends StatementMigration {
  name = 'PlanWebhooksScope1766700000002';

  protected readonly upStatements = [
    `ALTER TABLE licensing.plans DROP CONSTRAINT plans_restore_scopes_known`,
    `
      ALTER TABLE licensing.plans
        ADD CONSTRAINT plans_restore_scopes_known CHECK (
          restore_scopes <@ ARRAY['roles', 'channels', 'permission_overrides', 'guild_settings',
                                  'member_roles', 'bans', 'emojis', 'stickers', 'guild_images',
                                  'automod', 'webhooks']::text[]
        )`,
    `
      UPDATE licensing.plans
         SET restore_scopes = restore_scopes || '{webhooks}'::text[]
       WHERE code IN ('PRO', 'ENTERPRISE')`,
  ];

  protected readonly downStatements = [
    `UPDATE licensing.plans SET restore_scopes = array_remove(restore_scopes, 'webhooks')`,
    `ALTER TABLE licensing.plans DROP CONSTRAINT plans_restore_scopes_known`,
    `
      ALTER TABLE licensing.plans
        ADD CONSTRAINT plans_restore_scopes_known CHECK (
          restore_scopes <@ ARRAY['roles', 'channels', 'permission_overrides', 'guild_settings',
                                  'member_roles', 'bans', 'emojis', 'stickers', 'guild_images',
                                  'automod']::text[]
        )`,
  ];
}
