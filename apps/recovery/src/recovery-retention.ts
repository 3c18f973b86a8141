import { processedEventsRetention } from '@lib/messaging';
import { olderThanDays, type RetentionRule } from '@lib/runtime';
import type { DataSource } from 'typeorm';
import type { RecoveryEnv } from './recovery.env';
import {
  ChangeJournalRepository,
  JOURNAL_RETENTION_DAYS,
  JOURNAL_TABLES,
} from './sync/change-journal.repository';
import { PlatformIdReplacementsRepository } from './restore/platform-id-replacements.repository';
import { ScheduledSnapshotRunsRepository } from './snapshots/scheduled-snapshot-runs.repository';

/**
 * What recovery's retention sweep deletes (RETENTION_CRON, after the 04:00 snapshot retention, so
 * the replacements of the snapshots that went then go the same night). Snapshots themselves have
 * their own job (docs/behaviour.md §4.10: per trigger, by plan).
 */
export function recoveryRetention(
  dataSource: DataSource,
  config: Pick<RecoveryEnv, 'PROCESSED_EVENTS_RETENTION_DAYS' | 'SCHEDULED_SNAPSHOT_RUNS_RETENTION_DAYS'>,
): RetentionRule[] {
  const runs = new ScheduledSnapshotRunsRepository(dataSource);
  const replacements = new PlatformIdReplacementsRepository(dataSource);
  const journal = new ChangeJournalRepository(dataSource);
  return [
    processedEventsRetention(dataSource, 'recovery', config.PROCESSED_EVENTS_RETENTION_DAYS),
    olderThanDays(
      'recovery.scheduled_snapshot_runs',
      config.SCHEDULED_SNAPSHOT_RUNS_RETENTION_DAYS,
      (cutoff, limit) => runs.deleteFinishedBefore(cutoff, limit),
    ),
    ...JOURNAL_TABLES.map((table) =>
      olderThanDays(`recovery.${table}`, JOURNAL_RETENTION_DAYS, (cutoff, limit) =>
        journal.deleteBefore(table, cutoff, limit),
      ),
    ),
    // Kept as long as a snapshot may hold the ids they replace: no age of their own.
    {
      table: 'recovery.platform_id_replacements',
      apply: (_now, drain) => drain((limit) => replacements.deleteUnreferenced(limit)),
    },
  ];
}
