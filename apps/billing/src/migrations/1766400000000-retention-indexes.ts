import { ConcurrentIndexMigration } from '@lib/database';

/** Retention deletes `billing.provider_events` oldest first: along this index, a bounded range each batch. */
export class RetentionIndexes1766400000000 extends ConcurrentIndexMigration {
  name = 'RetentionIndexes1766400000000';

  protected readonly indexes = [
    { schema: 'billing', name: 'provider_events_applied_at_idx', on: 'provider_events (applied_at)' },
  ];
}
