import { ConcurrentIndexMigration } from '@lib/database';
import { processedEventsRetentionIndex } from '@lib/messaging';

/** Retention deletes applied events from `processed_events` oldest first: along this index, a bounded range each batch. */
export class RetentionIndexes1766400000000 extends ConcurrentIndexMigration {
  name = 'RetentionIndexes1766400000000';

  protected readonly indexes = [processedEventsRetentionIndex('licensing')];
}
