import { olderThanDays, type RetentionRule } from '@lib/runtime';
import type { DataSource } from 'typeorm';
import type { BillingEnv } from './billing.env';
import { ProviderEventsRepository } from './provider-events/provider-events.repository';

/**
 * What billing's retention sweep deletes (RETENTION_CRON). Charges (`payment_attempts`),
 * subscriptions and billing keys are never deleted: they are the accounts of money taken.
 */
export function billingRetention(
  dataSource: DataSource,
  config: Pick<BillingEnv, 'PROVIDER_EVENTS_RETENTION_DAYS'>,
): RetentionRule[] {
  const providerEvents = new ProviderEventsRepository();
  return [
    olderThanDays('billing.provider_events', config.PROVIDER_EVENTS_RETENTION_DAYS, (cutoff, limit) =>
      providerEvents.deleteAppliedBefore(dataSource, cutoff, limit),
    ),
  ];
}
