import { StatementMigration } from '@lib/database';

/**
 * The paid plans restore the guild's custom emojis, stickers and images (icon, banner, splashes),
 * and each plan says how many bytes of such images a guild's snapshots may keep (every image
 * counted once, however many snapshots hold it): FREE none (it has no restores), PRO 100 MiB,
 * ENTERPRISE 1 GiB. A guild at the platform's highest boost level holds 250 + 250 emojis of at most
 * 256 KiB and 60 stickers of at most 512 KiB, about 155 MiB if every one were as large as allowed;
 * real ones are a tenth of that, so PRO keeps a full guild and its changes over months.
 *
 * The scope CHECK is widened by name (the list is written out, as a migration runs the same
 * statements forever); the default only fills the existing rows and is dropped after.
 */
export class PlanExpressionScopes1766700000000 extends StatementMigration {
  name = 'PlanExpressionScopes1766700000000';

  protected readonly upStatements = [
    `ALTER TABLE licensing.plans DROP CONSTRAINT plans_restore_scopes_known`,
    `
      ALTER TABLE licensing.plans
        ADD CONSTRAINT plans_restore_scopes_known CHECK (
          restore_scopes <@ ARRAY['roles', 'channels', 'permission_overrides', 'guild_settings',
                                  'member_roles', 'bans', 'emojis', 'stickers', 'guild_images']::text[]
        ),
        ADD COLUMN snapshot_image_bytes integer NOT NULL DEFAULT 0 CHECK (snapshot_image_bytes >= 0)`,
    `
      UPDATE licensing.plans
         SET restore_scopes = restore_scopes || '{emojis,stickers,guild_images}'::text[]
       WHERE code IN ('PRO', 'ENTERPRISE')`,
    `UPDATE licensing.plans SET snapshot_image_bytes = 100 * 1024 * 1024 WHERE code = 'PRO'`,
    `UPDATE licensing.plans SET snapshot_image_bytes = 1024 * 1024 * 1024 WHERE code = 'ENTERPRISE'`,
    `ALTER TABLE licensing.plans ALTER COLUMN snapshot_image_bytes DROP DEFAULT`,
  ];

  protected readonly downStatements = [
    `
      UPDATE licensing.plans
         SET restore_scopes = array(SELECT unnest(restore_scopes)
                                    EXCEPT SELECT unnest('{emojis,stickers,guild_images}'::text[]))`,
    `ALTER TABLE licensing.plans DROP CONSTRAINT plans_restore_scopes_known, DROP COLUMN snapshot_image_bytes`,
    `
      ALTER TABLE licensing.plans
        ADD CONSTRAINT plans_restore_scopes_known CHECK (
          restore_scopes <@ ARRAY['roles', 'channels', 'permission_overrides', 'guild_settings',
                                  'member_roles', 'bans']::text[]
        )`,
  ];
}
