import { olderThanDays, type RetentionRule } from '@lib/runtime';
import type { DataSource } from 'typeorm';
import { ProcessedEventsRepository } from './processed-events.repository';

/**
 * A consuming service's `processed_events` rows of applied events, kept PROCESSED_EVENTS_RETENTION_DAYS:
 * a row's only use is to absorb a redelivery of its event, and no event is redelivered later than
 * the topics keep it (7 days on Kafka, k8s/base/kafka-topics.yaml) or, in standalone mode, than
 * the outbox keeps a sent row (72 hours). The setting's floor keeps it above both.
 */
export function processedEventsRetention(
  dataSource: DataSource,
  schema: string,
  days: number,
): RetentionRule {
  const processed = new ProcessedEventsRepository(schema);
  return olderThanDays(`${schema}.processed_events`, days, (cutoff, limit) =>
    processed.deleteDoneBefore(dataSource, cutoff, limit),
  );
}
