import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { JournalAuditEntry, JournalChange, JournalChangeRow } from './change-journal-entry';

export const JOURNAL_TABLES = ['change_journal', 'change_journal_audit_entries'] as const;
export type JournalTable = (typeof JOURNAL_TABLES)[number];

/** How long the journal is kept: an incident is undone within days, not weeks. */
export const JOURNAL_RETENTION_DAYS = 7;

/** A journal change to store: the guild (ours) and when the mirror applied it. */
export interface JournalChangeToStore {
  guild_id: string;
  change: JournalChange;
  at: Date;
}

export interface JournalAuditEntryToStore {
  guild_id: string;
  entry: JournalAuditEntry;
}

/** `recovery.change_journal` and `recovery.change_journal_audit_entries` (see their migration). */
@Injectable()
export class ChangeJournalRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Both lists in one transaction, each in one statement; an audit-log entry already kept is passed over. */
  async insert(changes: JournalChangeToStore[], entries: JournalAuditEntryToStore[]): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      if (changes.length > 0) {
        await manager.query(
          `INSERT INTO recovery.change_journal (guild_id, object_type, object_id, change, before, at)
           SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::jsonb[], $6::timestamptz[])`,
          [
            changes.map((row) => row.guild_id),
            changes.map((row) => row.change.object_type),
            changes.map((row) => row.change.object_id),
            changes.map((row) => row.change.change),
            changes.map((row) => ('before' in row.change ? JSON.stringify(row.change.before) : null)),
            changes.map((row) => row.at),
          ],
        );
      }
      if (entries.length > 0) {
        await manager.query(
          `INSERT INTO recovery.change_journal_audit_entries
             (guild_id, entry_id, actor_id, action_type, target_id, changes, at)
           SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::int[], $5::text[], $6::jsonb[], $7::timestamptz[])
           ON CONFLICT (guild_id, entry_id) DO NOTHING`,
          [
            entries.map((row) => row.guild_id),
            entries.map((row) => row.entry.entry_id),
            entries.map((row) => row.entry.actor_id),
            entries.map((row) => row.entry.action_type),
            entries.map((row) => row.entry.target_id),
            entries.map((row) => JSON.stringify(row.entry.changes)),
            entries.map((row) => row.entry.at),
          ],
        );
      }
    });
  }

  /** The guild's changes applied since `since`, oldest first. */
  async changesSince(guildId: string, since: Date): Promise<JournalChangeRow[]> {
    const rows = await this.dataSource.query<
      (Pick<JournalChangeRow, 'object_type' | 'object_id' | 'change' | 'at'> & { before: unknown })[]
    >(
      `SELECT object_type, object_id, change, before, at FROM recovery.change_journal
        WHERE guild_id = $1 AND at >= $2 ORDER BY at, id`,
      [guildId, since],
    );
    return rows.map(({ before, ...row }) => (before === null ? row : { ...row, before }) as JournalChangeRow);
  }

  /** What `actorId` did in the guild since `since`, by the platform's audit log, oldest first. */
  async entriesBy(guildId: string, actorId: string, since: Date): Promise<JournalAuditEntry[]> {
    return this.dataSource.query<JournalAuditEntry[]>(
      `SELECT entry_id, actor_id, action_type, target_id, changes, at
         FROM recovery.change_journal_audit_entries
        WHERE guild_id = $1 AND actor_id = $2 AND at >= $3
        ORDER BY at, entry_id`,
      [guildId, actorId, since],
    );
  }

  /** Deletes at most `limit` rows of `table` older than `cutoff`; returns how many went. */
  async deleteBefore(table: JournalTable, cutoff: Date, limit: number): Promise<number> {
    const [, deleted] = await this.dataSource.query<[unknown, number]>(
      `DELETE FROM recovery.${table} WHERE ctid = ANY (ARRAY(
         SELECT ctid FROM recovery.${table} WHERE at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED))`,
      [cutoff, limit],
    );
    return deleted;
  }
}
