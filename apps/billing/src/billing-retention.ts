import { olderThanDays, type RetentionRule } from '@lib/runtime';
import type { DataSource } from 'typeorm';
import type { BillingEnv } from './billing.env';
import { CheckoutsRepository } from './checkout/checkouts.repository';
import { ProviderEventsRepository } from './provider-events/provider-events.repository';

/**
 * Days a checkout is kept past its expiry: it can no longer be confirmed, and is kept only to
 * answer a payer's question about a refused confirm. Not a setting: nothing depends on it.
 */
export const CHECKOUT_RETENTION_DAYS = 7;

/**
 * What billing's retention sweep deletes (RETENTION_CRON). Charges (`payment_attempts`),
 * subscriptions and billing keys are never deleted: they are the accounts of money taken.
 */
export function billingRetention(
  dataSource: DataSource,
  config: Pick<BillingEnv, 'PROVIDER_EVENTS_RETENTION_DAYS'>,
): RetentionRule[] {
  const providerEvents = new ProviderEventsRepository();
  const checkouts = new CheckoutsRepository();
  return [
    olderThanDays('billing.provider_events', config.PROVIDER_EVENTS_RETENTION_DAYS, (cutoff, limit) =>
      providerEvents.deleteAppliedBefore(dataSource, cutoff, limit),
    ),
    olderThanDays('billing.checkouts', CHECKOUT_RETENTION_DAYS, (cutoff, limit) =>
      checkouts.deleteExpiredBefore(dataSource, cutoff, limit),
    ),
  ];
}
