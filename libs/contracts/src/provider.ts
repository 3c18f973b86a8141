/**
 * The payment provider's webhook wire formats, shared by the fake provider that sends them, the
 * webhook intake that verifies and routes them, and billing, which applies them.
 *
 * Two, one per deployment (webhook intake's PROVIDER_WEBHOOK_VERIFICATION):
 * - `signature`, the spec's (§4.9, §5.4): `{ eventId, eventType, createdAt, data }`, signed with
 *   `Provider-Signature` = HMAC-SHA256(raw body bytes, WEBHOOK_SECRET), hex or base64, optionally
 *   prefixed `sha256=`. Billing applies the event's data.
 * - `lookup`, Toss Payments' (docs.tosspayments.com/reference/using-api/webhook-events):
 *   `{ eventType, createdAt, data }`, no event id and, for payment events, no signature. Billing
 *   believes nothing in it but which payment (or billing key) it names: it asks the provider.
 */
export const PROVIDER_EVENT_TYPES = [
  'PAYMENT.DONE',
  'PAYMENT.CANCELED',
  'PAYMENT.FAILED',
  'BILLING_KEY.DELETED',
] as const;
export type ProviderEventType = (typeof PROVIDER_EVENT_TYPES)[number];

export const PROVIDER_SIGNATURE_HEADER = 'provider-signature';
/** `source` of webhook events recorded for the payment provider. */
export const PROVIDER_WEBHOOK_SOURCE = 'provider';

export interface ProviderEventData {
  /** The charge was approved (supplementary confirmation of the charge response). */
  'PAYMENT.DONE': {
    paymentKey: string;
    orderId: string;
    status: 'DONE';
    approvedAt: string;
    totalAmount: number;
    customerKey: string;
  };
  /** The provider canceled an approved payment (e.g. an operator refund at the provider). */
  'PAYMENT.CANCELED': {
    paymentKey: string;
    orderId: string;
    status: 'CANCELED';
    canceledAt: string;
    cancelReason: string;
    customerKey: string;
  };
  /** The charge did not go through (supplementary notice). */
  'PAYMENT.FAILED': {
    paymentKey: string | null;
    orderId: string;
    status: 'ABORTED';
    failure: { code: string; message: string };
    customerKey: string;
  };
  /** The customer or the provider removed the billing key; later charges with it fail. */
  'BILLING_KEY.DELETED': {
    billingKey: string;
    customerKey: string;
    deletedAt: string;
  };
}

export interface ProviderWebhookBody<T extends ProviderEventType = ProviderEventType> {
  eventId: string;
  eventType: T;
  createdAt: string;
  data: ProviderEventData[T];
}

export function isProviderEventType(value: unknown): value is ProviderEventType {
  return typeof value === 'string' && (PROVIDER_EVENT_TYPES as readonly string[]).includes(value);
}

/** How webhook intake believes a delivery; chosen per deployment (PROVIDER_WEBHOOK_VERIFICATION). */
export const PROVIDER_WEBHOOK_VERIFICATIONS = ['lookup', 'signature'] as const;
export type ProviderWebhookVerification = (typeof PROVIDER_WEBHOOK_VERIFICATIONS)[number];

/**
 * Toss's webhook body (`lookup` mode). `createdAt` is `yyyy-MM-dd'T'HH:mm:ss.SSSSSS` in KST without
 * an offset. `data` is, per event type: PAYMENT_STATUS_CHANGED the whole Payment object;
 * CANCEL_STATUS_CHANGED one Cancel object (overseas easy-pay cancels only); BILLING_DELETED
 * `{ billingKey, reason }`.
 */
export interface TossWebhookBody {
  eventType: string;
  createdAt: string;
  data: Record<string, unknown>;
}

/** The Toss event types billing acts on; any other is recorded and not routed. */
export const TOSS_EVENT_TYPES = [
  'PAYMENT_STATUS_CHANGED',
  'CANCEL_STATUS_CHANGED',
  'BILLING_DELETED',
] as const;
export type TossEventType = (typeof TOSS_EVENT_TYPES)[number];

export function isTossEventType(value: unknown): value is TossEventType {
  return typeof value === 'string' && (TOSS_EVENT_TYPES as readonly string[]).includes(value);
}

/**
 * Toss resends a delivery not answered 200 seven times, 1, 4, 16, 64, 256, 1024 and 4096 minutes
 * after the one before (docs.tosspayments.com/guides/webhook): the last about 3 days 19 hours after
 * the first, then it gives up.
 */
export const TOSS_WEBHOOK_RETRY_MINUTES = [1, 4, 16, 64, 256, 1024, 4096] as const;
/** How long after its first delivery a Toss event can still arrive (5461 minutes). */
export const TOSS_WEBHOOK_RETRY_WINDOW_MS =
  TOSS_WEBHOOK_RETRY_MINUTES.reduce((sum, minutes) => sum + minutes, 0) * 60_000;

/**
 * A `lookup`-mode delivery as intake routes it: only what names the payment or billing key, and
 * what the delivery claimed (for the record). Billing applies what the provider answers about it,
 * never the delivery's own data.
 */
export type LookupProviderEventData =
  { paymentKey: string; claimedStatus: string | null } | { billingKey: string };

/**
 * What webhook intake sends to billing (`POST /internal/v1/provider-events`) for a first-seen
 * event. `event_id` is the provider's `eventId` (`signature`), or the key intake derived from what
 * identifies the change (`lookup`: Toss sends no event id).
 */
export type RoutedProviderEvent<T extends ProviderEventType = ProviderEventType> =
  SignedProviderEvent<T> | LookupProviderEvent;

export interface SignedProviderEvent<T extends ProviderEventType = ProviderEventType> {
  event_id: string;
  event_type: T;
  data: ProviderEventData[T];
  verification?: 'signature';
}

export interface LookupProviderEvent {
  event_id: string;
  event_type: TossEventType;
  data: LookupProviderEventData;
  verification: 'lookup';
}

/**
 * Billing's answer: what the event did. Anything but 2xx means "not applied, resend".
 * `unconfirmed`: a `lookup` delivery the provider does not confirm (it knows no such payment):
 * recorded, nothing applied.
 */
export interface ProviderEventOutcome {
  outcome: 'applied' | 'already_applied' | 'ignored' | 'unconfirmed';
  detail: string;
}
