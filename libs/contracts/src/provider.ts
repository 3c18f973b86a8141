/**
 * The payment provider's webhook wire format, shared by the fake provider that sends it, the
 * webhook intake that verifies and routes it, and billing, which applies it.
 *
 * Body: `{ eventId, eventType, createdAt, data }`, signed with `Provider-Signature` =
 * HMAC-SHA256(raw body bytes, WEBHOOK_SECRET), hex or base64, optionally prefixed `sha256=`.
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

/**
 * What webhook intake sends to billing (`POST /internal/v1/provider-events`) for a verified,
 * first-seen event. `event_id` is the provider's `eventId`.
 */
export interface RoutedProviderEvent<T extends ProviderEventType = ProviderEventType> {
  event_id: string;
  event_type: T;
  data: ProviderEventData[T];
}

/** Billing's answer: what the event did. Anything but 2xx means "not applied, resend". */
export interface ProviderEventOutcome {
  outcome: 'applied' | 'already_applied' | 'ignored';
  detail: string;
}
