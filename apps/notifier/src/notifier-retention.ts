import { processedEventsRetention } from '@lib/messaging';
import { olderThanDays, type RetentionRule } from '@lib/runtime';
import type { DataSource } from 'typeorm';
import { AuditLogRetention, type PlanSource } from './audit/audit-log-retention';
import { AuditLogRetentionRepository } from './audit/audit-log-retention.repository';
import { notifierDatabase } from './database';
import { NotificationsRepository } from './notifications/notifications.repository';
import type { NotifierEnv } from './notifier.env';

/**
 * What the notifier's retention sweep deletes (RETENTION_CRON): consumed events' records, final DMs,
 * and audit log entries past their guild's plan's retention (asked of licensing through `plans`).
 */
export function notifierRetention(
  dataSource: DataSource,
  config: Pick<NotifierEnv, 'PROCESSED_EVENTS_RETENTION_DAYS' | 'NOTIFICATIONS_RETENTION_DAYS'>,
  plans: PlanSource,
): RetentionRule[] {
  const notifications = new NotificationsRepository(dataSource);
  return [
    processedEventsRetention(dataSource, notifierDatabase.schema, config.PROCESSED_EVENTS_RETENTION_DAYS),
    olderThanDays('notification.notifications', config.NOTIFICATIONS_RETENTION_DAYS, (cutoff, limit) =>
      notifications.deleteFinalBefore(cutoff, limit),
    ),
    new AuditLogRetention(new AuditLogRetentionRepository(dataSource), plans),
  ];
}
