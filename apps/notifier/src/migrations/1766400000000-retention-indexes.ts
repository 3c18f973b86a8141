import { ConcurrentIndexMigration } from '@lib/database';
import { processedEventsRetentionIndex } from '@lib/messaging';

/**
 * Retention deletes oldest first, along these indexes, a bounded range each batch: applied events
 * from `processed_events`, final DMs from `notifications` (pending ones are never deleted).
 */
export class RetentionIndexes1766400000000 extends ConcurrentIndexMigration {
  name = 'RetentionIndexes1766400000000';

  protected readonly indexes = [
    processedEventsRetentionIndex('notification'),
    {
      schema: 'notification',
      name: 'notifications_final_idx',
      on: `notifications (updated_at) WHERE status <> 'pending'`,
    },
  ];
}
