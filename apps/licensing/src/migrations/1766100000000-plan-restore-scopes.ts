import { StatementMigration } from '@lib/database';

/**
 * What a restore may put back on each plan: the spec's four scopes and, new, members'
 * roles and bans. PRO and ENTERPRISE may restore all six; FREE has no RECOVERY_RESTORE, so none.
 *
 * The scope list is written out rather than taken from RESTORE_SCOPES: a migration runs the same
 * statements forever, and a later scope is a later migration widening the CHECK. `<@` also refuses a
 * NULL element, which is no scope. The default only fills the existing rows and is dropped after, so
 * a plan added later must state its scopes.
 */
export class PlanRestoreScopes1766100000000 extends StatementMigration {
  name = 'PlanRestoreScopes1766100000000';

  protected readonly upStatements = [
    `
      ALTER TABLE licensing.plans
        ADD COLUMN restore_scopes text[] NOT NULL DEFAULT '{}',
        ADD CONSTRAINT plans_restore_scopes_known CHECK (
          restore_scopes <@ ARRAY['roles', 'channels', 'permission_overrides', 'guild_settings',
                                  'member_roles', 'bans']::text[]
        )`,
    `
      UPDATE licensing.plans
         SET restore_scopes = '{roles,channels,permission_overrides,guild_settings,member_roles,bans}'
       WHERE code IN ('PRO', 'ENTERPRISE')`,
    `ALTER TABLE licensing.plans ALTER COLUMN restore_scopes DROP DEFAULT`,
  ];

  protected readonly downStatements = [
    `ALTER TABLE licensing.plans DROP CONSTRAINT plans_restore_scopes_known, DROP COLUMN restore_scopes`,
  ];
}
