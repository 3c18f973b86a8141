import { StatementMigration } from '@lib/database';

/**
 * Loosening AntiNuke waits for the owner: a manager's change that loosens it is kept as the guild's
 * one pending change until it applies or the owner refuses it. A deleted snapshot stays for a
 * grace period (who deleted it, and when), so the owner can undo the delete.
 */
export class GuardTheGuard1766610000000 extends StatementMigration {
  name = 'GuardTheGuard1766610000000';

  protected readonly upStatements = [
    `
      CREATE TABLE recovery.antinuke_pending_changes (
        id uuid PRIMARY KEY,
        guild_id uuid NOT NULL UNIQUE REFERENCES recovery.guilds (id),
        requested_by_user uuid,
        requested_by_platform_user_id text NOT NULL,
        before jsonb NOT NULL,
        after jsonb NOT NULL,
        loosened text[] NOT NULL CHECK (cardinality(loosened) > 0),
        requested_at timestamptz NOT NULL DEFAULT now(),
        applies_at timestamptz NOT NULL
      )`,
    `CREATE INDEX antinuke_pending_changes_due_idx ON recovery.antinuke_pending_changes (applies_at)`,
    `
      ALTER TABLE recovery.snapshots
        ADD COLUMN deleted_at timestamptz,
        ADD COLUMN deleted_by_user uuid,
        ADD COLUMN deleted_by_platform_user_id text`,
    `CREATE INDEX snapshots_deleted_idx ON recovery.snapshots (deleted_at) WHERE deleted_at IS NOT NULL`,
  ];

  protected readonly downStatements = [
    `DROP INDEX recovery.snapshots_deleted_idx`,
    `
      ALTER TABLE recovery.snapshots
        DROP COLUMN deleted_at,
        DROP COLUMN deleted_by_user,
        DROP COLUMN deleted_by_platform_user_id`,
    `DROP TABLE recovery.antinuke_pending_changes`,
  ];
}
