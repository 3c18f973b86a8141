import { processedEventsRetention } from '@lib/messaging';
import type { RetentionRule } from '@lib/runtime';
import type { DataSource } from 'typeorm';
import { licensingDatabase } from './database';
import type { LicensingEnv } from './licensing.env';

/** What licensing's retention sweep deletes (RETENTION_CRON). Licences and plans are kept. */
export function licensingRetention(
  dataSource: DataSource,
  config: Pick<LicensingEnv, 'PROCESSED_EVENTS_RETENTION_DAYS'>,
): RetentionRule[] {
  return [
    processedEventsRetention(dataSource, licensingDatabase.schema, config.PROCESSED_EVENTS_RETENTION_DAYS),
  ];
}
