import { isTossEventType, type LookupProviderEvent } from '@lib/contracts';
import { createHash } from 'node:crypto';

/**
 * A Toss delivery (`lookup` mode) as intake reads it: the key that tells a resend of a change from
 * a new change, and what billing is to look up at the provider.
 */
export interface TossDelivery {
  /** `<eventType>:<SHA-256 hex of what identifies the change>`: the row's `external_event_id`. */
  changeKey: string;
  eventType: string;
  /** Null for an event billing does not act on: recorded and answered 200, never routed. */
  routed: LookupProviderEvent | null;
}

/** Why a body is not a Toss delivery: the row's `unparseable:` detail, and the problem's. */
export interface TossDeliveryProblem {
  problem: string;
}

const MAX_EVENT_TYPE = 100;
const MAX_KEY = 300;

/**
 * Toss sends no event id, so the key is derived from what identifies the change
 * (docs.tosspayments.com/reference/using-api/webhook-events):
 * - PAYMENT_STATUS_CHANGED (the Payment object): the payment key, the status, and the key of the
 *   payment's last transaction (each approval and each cancel is a transaction of its own), or,
 *   were it missing, the approval time and the last cancel's time. A resend carries the same
 *   object, so the same key; a later change of the same payment (DONE, then CANCELED) another.
 * - CANCEL_STATUS_CHANGED (one Cancel object): its transaction key and cancel status.
 * - BILLING_DELETED: the billing key alone; a key is deleted once. The body's `createdAt` is left
 *   out: Toss does not say whether a resend keeps it, and a key that changed between resends would
 *   apply one change twice.
 * - any other type: the body's SHA-256 (recorded, never routed).
 *
 * Only what names the payment or the billing key goes to billing, with the status the delivery
 * claimed for the record: billing applies what the provider answers, never the body's data.
 */
export function readTossDelivery(json: unknown, rawBody: Buffer): TossDelivery | TossDeliveryProblem {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    return { problem: 'body is not a JSON object' };
  }
  const { eventType, data } = json as Record<string, unknown>;
  if (typeof eventType !== 'string' || eventType.length === 0 || eventType.length > MAX_EVENT_TYPE) {
    return { problem: 'body lacks a string eventType' };
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return { problem: 'body lacks a data object' };
  }
  const fields = data as Record<string, unknown>;
  if (!isTossEventType(eventType)) {
    return delivery(eventType, [sha256(rawBody)], null);
  }
  switch (eventType) {
    case 'PAYMENT_STATUS_CHANGED': {
      const paymentKey = key(fields.paymentKey);
      const status = key(fields.status);
      if (!paymentKey || !status) return { problem: 'data lacks a string paymentKey and status' };
      const transaction =
        key(fields.lastTransactionKey) ?? `${text(fields.approvedAt)}|${lastCancelTime(fields)}`;
      return delivery(eventType, [paymentKey, status, transaction], { paymentKey, claimedStatus: status });
    }
    case 'CANCEL_STATUS_CHANGED': {
      const transactionKey = key(fields.transactionKey);
      if (!transactionKey) return { problem: 'data lacks a string transactionKey' };
      // Toss's Cancel object names no payment; sent for overseas easy-pay cancels only, never for a
      // card billing charge. Routed only if it does name one (then the payment is looked up).
      const paymentKey = key(fields.paymentKey);
      const cancelStatus = key(fields.cancelStatus);
      return delivery(
        eventType,
        [transactionKey, cancelStatus ?? ''],
        paymentKey ? { paymentKey, claimedStatus: cancelStatus } : null,
      );
    }
    case 'BILLING_DELETED': {
      const billingKey = key(fields.billingKey);
      if (!billingKey) return { problem: 'data lacks a string billingKey' };
      return delivery(eventType, [billingKey], { billingKey });
    }
  }
}

export function isTossDeliveryProblem(read: TossDelivery | TossDeliveryProblem): read is TossDeliveryProblem {
  return 'problem' in read;
}

/** The delivery keyed on `parts`; routed to billing as a look-up of `lookup`, when there is one. */
function delivery(
  eventType: string,
  parts: string[],
  lookup: LookupProviderEvent['data'] | null,
): TossDelivery {
  const changeKey = `${eventType}:${sha256(Buffer.from(parts.join('\u0000'), 'utf8'))}`;
  const routed: LookupProviderEvent | null =
    lookup && isTossEventType(eventType)
      ? { event_id: changeKey, event_type: eventType, data: lookup, verification: 'lookup' }
      : null;
  return { changeKey, eventType, routed };
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function key(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_KEY ? value : null;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function lastCancelTime(payment: Record<string, unknown>): string {
  const cancels = Array.isArray(payment.cancels) ? (payment.cancels as unknown[]) : [];
  const last = cancels.at(-1);
  return typeof last === 'object' && last !== null ? text((last as Record<string, unknown>).canceledAt) : '';
}
