import { StatementMigration } from '@lib/database';

/**
 * The paid plans restore the guild's welcome screen and onboarding too (scope `onboarding`); the
 * CHECK is widened by name.
 */
export class PlanOnboardingScope1766700000003 extends StatementMigration {
  name = 'PlanOnboardingScope1766700000003';

  protected readonly upStatements = [
    `ALTER TABLE licensing.plans DROP CONSTRAINT plans_restore_scopes_known`,
    `
      ALTER TABLE licensing.plans
        ADD CONSTRAINT plans_restore_scopes_known CHECK (
          restore_scopes <@ ARRAY['roles', 'channels', 'permission_overrides', 'guild_settings',
                                  'member_roles', 'bans', 'emojis', 'stickers', 'guild_images',
                                  'automod', 'webhooks', 'onboarding']::text[]
        )`,
    `
      UPDATE licensing.plans
         SET restore_scopes = restore_scopes || '{onboarding}'::text[]
       WHERE code IN ('PRO', 'ENTERPRISE')`,
  ];

  protected readonly downStatements = [
    `UPDATE licensing.plans SET restore_scopes = array_remove(restore_scopes, 'onboarding')`,
    `ALTER TABLE licensing.plans DROP CONSTRAINT plans_restore_scopes_known`,
    `
      ALTER TABLE licensing.plans
        ADD CONSTRAINT plans_restore_scopes_known CHECK (
          restore_scopes <@ ARRAY['roles', 'channels', 'permission_overrides', 'guild_settings',
                                  'member_roles', 'bans', 'emojis', 'stickers', 'guild_images',
                                  'automod', 'webhooks']::text[]
        )`,
  ];
}
