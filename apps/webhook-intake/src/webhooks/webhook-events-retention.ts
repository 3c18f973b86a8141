import { olderThanDays, type RetentionRule } from '@lib/runtime';
import type { WebhookEventsRepository } from './webhook-events.repository';

/**
 * `webhook.webhook_events` rows in a final state (processed, duplicate, refused for their
 * signature, a failed delivery of an event routed since) whose last change is older than
 * WEBHOOK_EVENTS_RETENTION_DAYS. A pending row, and a failed one of an event not routed since (an
 * operator may still reprocess it), is never deleted, however old.
 *
 * Duplicates go first: they reference the rows they duplicate. A failed delivery is final while its
 * event's routed row exists, so it goes before that row does.
 */
export function webhookEventsRetention(events: WebhookEventsRepository, days: number): RetentionRule[] {
  return (['duplicates', 'superseded', 'others'] as const).map((kind) =>
    olderThanDays(
      'webhook.webhook_events',
      days,
      (cutoff, limit) => events.deleteExpired(kind, cutoff, limit),
      `webhook.webhook_events:${kind}`,
    ),
  );
}
