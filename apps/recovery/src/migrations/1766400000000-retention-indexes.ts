import { ConcurrentIndexMigration } from '@lib/database';
import { processedEventsRetentionIndex } from '@lib/messaging';

/**
 * Retention deletes oldest first, along these indexes, a bounded range each batch: applied events
 * from `processed_events`, finished runs from `scheduled_snapshot_runs` (pending ones are the
 * queue, never deleted).
 */
export class RetentionIndexes1766400000000 extends ConcurrentIndexMigration {
  name = 'RetentionIndexes1766400000000';

  protected readonly indexes = [
    processedEventsRetentionIndex('recovery'),
    {
      schema: 'recovery',
      name: 'scheduled_snapshot_runs_finished_idx',
      on: `scheduled_snapshot_runs (run_date) WHERE status <> 'pending'`,
    },
  ];
}
