import { StatementMigration } from '@lib/database';

/**
 * `manual_snapshot_reservations`: the one manual snapshot of a guild in flight. Taken (with the
 * slot counted) before the platform is read, given back in the transaction that stores the
 * snapshot; `token` names the request holding it, `reserved_at` lets a reservation left by a
 * process that died mid-snapshot be taken over.
 */
export class ManualSnapshotReservations1766640000001 extends StatementMigration {
  name = 'ManualSnapshotReservations1766640000001';

  protected readonly upStatements = [
    `
      CREATE TABLE recovery.manual_snapshot_reservations (
        guild_id uuid PRIMARY KEY REFERENCES recovery.guilds (id) ON DELETE CASCADE,
        token uuid NOT NULL,
        reserved_at timestamptz NOT NULL DEFAULT now()
      )`,
  ];

  protected readonly downStatements = [`DROP TABLE recovery.manual_snapshot_reservations`];
}
