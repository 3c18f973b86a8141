import { StatementMigration } from '@lib/database';

/**
 * What live sync saw change, so that a raid can be undone to the guild as it was before the
 * raider's first action (the incident's own snapshot is taken after the damage):
 *
 * - `change_journal`: each channel, role and settings change the mirror applied, with the object's
 *   version the mirror held before it (`before`, null for a creation);
 * - `change_journal_audit_entries`: each audit-log entry (who did what to which object, with the
 *   old values), once per entry however often it is announced.
 *
 * Both are written in batches by live sync and kept for a bounded time (the retention sweep).
 */
export class ChangeJournal1766600000000 extends StatementMigration {
  name = 'ChangeJournal1766600000000';

  protected readonly upStatements = [
    `
      CREATE TABLE recovery.change_journal (
        id bigserial PRIMARY KEY,
        guild_id uuid NOT NULL,
        object_type text NOT NULL CHECK (object_type IN ('channel', 'role', 'settings')),
        object_id text NOT NULL,
        change text NOT NULL CHECK (change IN ('create', 'update', 'delete')),
        before jsonb,
        at timestamptz NOT NULL,
        CHECK ((change = 'create') = (before IS NULL))
      )`,
    `CREATE INDEX change_journal_guild_idx ON recovery.change_journal (guild_id, at)`,
    `CREATE INDEX change_journal_at_idx ON recovery.change_journal (at)`,
    `
      CREATE TABLE recovery.change_journal_audit_entries (
        guild_id uuid NOT NULL,
        entry_id text NOT NULL,
        actor_id text,
        action_type integer NOT NULL,
        target_id text,
        changes jsonb NOT NULL,
        at timestamptz NOT NULL,
        PRIMARY KEY (guild_id, entry_id)
      )`,
    `CREATE INDEX change_journal_audit_entries_actor_idx
       ON recovery.change_journal_audit_entries (guild_id, actor_id, at)`,
    `CREATE INDEX change_journal_audit_entries_at_idx ON recovery.change_journal_audit_entries (at)`,
    `ALTER TABLE recovery.antinuke_incidents ADD COLUMN undo_snapshot_id uuid`,
  ];

  protected readonly downStatements = [
    `ALTER TABLE recovery.antinuke_incidents DROP COLUMN undo_snapshot_id`,
    `DROP TABLE recovery.change_journal_audit_entries`,
    `DROP TABLE recovery.change_journal`,
  ];
}
