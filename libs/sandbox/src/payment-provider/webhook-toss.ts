import { TOSS_WEBHOOK_RETRY_MINUTES, type TossWebhookBody } from '@lib/contracts';
import { kstTimestamp } from './kst-time';
import type { ProviderPayment } from './payment-object';
import { randomId } from './random-id';

/**
 * Toss Payments' webhooks as it sends them (docs.tosspayments.com/reference/using-api/webhook-events,
 * guides/webhook): `{eventType, createdAt, data}`, JSON, POSTed with the transmission headers below
 * and no event id. Payment and billing events carry no signature (Toss signs only its payout and
 * seller events), so none is sent. A delivery not answered 200 is resent seven times, 1, 4, 16, 64,
 * 256, 1024 and 4096 minutes apart, then given up.
 *
 * Undocumented, and read the stricter way here: whether a resend keeps the transmission id (the
 * fake gives every transmission its own, so nothing can deduplicate on it) and the body's
 * `createdAt` (kept: the body is sent again as it was).
 */
export const TOSS_TRANSMISSION_HEADERS = {
  time: 'tosspayments-webhook-transmission-time',
  retriedCount: 'tosspayments-webhook-transmission-retried-count',
  id: 'tosspayments-webhook-transmission-id',
} as const;

/** `yyyy-MM-dd'T'HH:mm:ss.SSSSSS`, Korean time without an offset, as Toss writes `createdAt`. */
export function tossCreatedAt(now: Date): string {
  return `${new Date(now.getTime() + 9 * 3_600_000).toISOString().slice(0, 23)}000`;
}

/** PAYMENT_STATUS_CHANGED: the whole Payment object, as the look-ups answer it at that moment. */
export function paymentStatusChanged(payment: ProviderPayment, now = new Date()): TossWebhookBody {
  return {
    eventType: 'PAYMENT_STATUS_CHANGED',
    createdAt: tossCreatedAt(now),
    data: JSON.parse(JSON.stringify(payment)) as Record<string, unknown>,
  };
}

/** BILLING_DELETED: the deleted billing key and why (`reason` may be null). */
export function billingDeleted(billingKey: string, reason: string | null, now = new Date()): TossWebhookBody {
  return { eventType: 'BILLING_DELETED', createdAt: tossCreatedAt(now), data: { billingKey, reason } };
}

/** The headers of one transmission; `retriedCount` 0 is the first. */
export function transmissionHeaders(retriedCount: number, now = new Date()): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    [TOSS_TRANSMISSION_HEADERS.time]: kstTimestamp(now),
    [TOSS_TRANSMISSION_HEADERS.retriedCount]: String(retriedCount),
    [TOSS_TRANSMISSION_HEADERS.id]: randomId('whtrans_'),
  };
}

/**
 * How long after the previous transmission each resend goes, in ms, with Toss's minutes multiplied
 * by `timeScale` (1: real time; a test compresses the 3 days 19 hours to milliseconds).
 */
export function resendDelaysMs(timeScale: number): number[] {
  if (!(timeScale > 0) || !Number.isFinite(timeScale)) {
    throw new Error(`the webhook retry time scale must be a positive number, got ${timeScale}`);
  }
  return TOSS_WEBHOOK_RETRY_MINUTES.map((minutes) => Math.max(1, Math.round(minutes * 60_000 * timeScale)));
}
