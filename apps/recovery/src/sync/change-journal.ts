import { Injectable, Logger } from '@nestjs/common';
import { Counter } from 'prom-client';
import type { JournalAuditEntry, JournalChange } from './change-journal-entry';
import {
  ChangeJournalRepository,
  type JournalAuditEntryToStore,
  type JournalChangeToStore,
} from './change-journal.repository';

/** Rows per write; a full buffer is written at once rather than after FLUSH_MS. */
export const JOURNAL_BATCH = 500;
/** How long a row waits for others before it is written. */
export const JOURNAL_FLUSH_MS = 200;
/** Rows held while the database does not answer; beyond this the newest are dropped (and counted). */
export const JOURNAL_MAX_HELD = 50_000;
/** After a failed write, wait this long before the next. */
const RETRY_MS = 2_000;

const journalDropped = new Counter({
  name: 'live_sync_journal_dropped_total',
  help: 'Journal rows dropped because the database did not take them in time (operator alert)',
});
const journalWritten = new Counter({
  name: 'live_sync_journal_rows_written_total',
  help: 'Change journal rows written',
});

/**
 * The change journal's writer: live sync hands it each before-image and audit-log entry on its hot
 * path (no wait, no I/O there); they are written in batches, at most JOURNAL_FLUSH_MS later, in
 * Postgres so that any recovery process can compose an undo from them.
 */
@Injectable()
export class ChangeJournal {
  private readonly logger = new Logger(ChangeJournal.name);
  private changes: JournalChangeToStore[] = [];
  private entries: JournalAuditEntryToStore[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> | null = null;

  constructor(private readonly repository: ChangeJournalRepository) {}

  change(guildId: string, change: JournalChange, at = new Date()): void {
    if (!this.room()) return;
    this.changes.push({ guild_id: guildId, change, at });
    this.schedule();
  }

  auditEntry(guildId: string, entry: JournalAuditEntry): void {
    if (!this.room()) return;
    this.entries.push({ guild_id: guildId, entry });
    this.schedule();
  }

  /** Writes everything held now (shutdown, tests); resolves once written or failed. */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    while (this.writing) await this.writing;
    if (this.held() === 0) return;
    const changes = this.changes.splice(0, this.changes.length);
    const entries = this.entries.splice(0, this.entries.length);
    this.writing = this.write(changes, entries).finally(() => (this.writing = null));
    await this.writing;
  }

  private async write(changes: JournalChangeToStore[], entries: JournalAuditEntryToStore[]): Promise<void> {
    try {
      for (let from = 0; from < Math.max(changes.length, entries.length); from += JOURNAL_BATCH) {
        await this.repository.insert(
          changes.slice(from, from + JOURNAL_BATCH),
          entries.slice(from, from + JOURNAL_BATCH),
        );
      }
      journalWritten.inc(changes.length + entries.length);
    } catch (error) {
      // Held again, oldest first, for the next try; insert is all-or-nothing per batch and an
      // entry written twice is passed over, a change written twice only repeats a before-image.
      this.changes = [...changes, ...this.changes];
      this.entries = [...entries, ...this.entries];
      this.logger.warn({ err: String(error), held: this.held() }, 'change journal not written; retried');
      this.schedule(RETRY_MS);
    }
  }

  private held(): number {
    return this.changes.length + this.entries.length;
  }

  private room(): boolean {
    if (this.held() < JOURNAL_MAX_HELD) return true;
    journalDropped.inc();
    return false;
  }

  private schedule(delayMs = JOURNAL_FLUSH_MS): void {
    if (this.held() >= JOURNAL_BATCH && !this.writing) {
      void this.flush();
      return;
    }
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, delayMs);
    this.timer.unref();
  }
}
