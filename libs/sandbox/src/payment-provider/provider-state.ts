import type { ProviderPayment } from './wire-format';

export interface ProviderFailure {
  code: string;
  message: string;
}

/** A charge the provider decided: approved (and maybe canceled since) or declined. */
export interface ChargeRecord {
  /** The approved payment's key; null for a declined charge (its Payment object has one of its own). */
  paymentKey: string | null;
  orderId: string;
  orderName: string;
  amount: number;
  billingKey: string;
  customerKey: string;
  idempotencyKey: string | null;
  status: 'DONE' | 'ABORTED' | 'CANCELED';
  failure: ProviderFailure | null;
  approvedAt: Date | null;
}

export interface BillingKeyRecord {
  billingKey: string;
  customerKey: string;
  /** Masked, as in the provider's answers. */
  cardNumber: string;
  cardCompany: string;
  issuedAt: Date;
  deletedAt: Date | null;
  /** The next charge on the key is held this long (the slow test card's first one); absent: none. */
  firstChargeDelayMs?: number;
  /**
   * What befalls the key's first charge (the test cards'): a temporary failure (no charge), or a
   * lost answer (charged, answered PROVIDER_ERROR). Absent: none.
   */
  firstChargeMishap?: 'temporaryFailure' | 'lostAnswer';
}

export interface PaymentRequestRecord {
  method: string;
  /** Percent-decoded, without the query. */
  path: string;
  status: number;
  idempotencyKey: string | null;
  /** Answered from the idempotency cache rather than processed. */
  replayed: boolean;
  authorization: 'ok' | 'missing' | 'wrong';
  at: Date;
}

/** One webhook the fake sent on its own (see `webhookUrl`): the receiver's status or why it failed. */
export interface WebhookDelivery {
  /** The spec envelope's event id; null for a Toss delivery, which has none. */
  eventId: string | null;
  eventType: string;
  /** 0 for a delivery's first transmission, n for its n-th resend (Toss's retried-count header). */
  retriedCount: number;
  /** The receiver's answer; null when none came (`error` says why). */
  status: number | null;
  error: string | null;
}

/** A card the customer authenticated in the widget, waiting to be exchanged for a billing key. */
export interface PendingAuthKey {
  authKey: string;
  customerKey: string;
  /** Masked already: the fake never needs the full number again. */
  cardNumber: string;
  cardCompany: string;
  issueRejection: (ProviderFailure & { status: number }) | null;
  expired: boolean;
  used: boolean;
  /** Handed to the billing key it becomes (BillingKeyRecord). */
  firstChargeDelayMs: number | null;
  firstChargeMishap?: BillingKeyRecord['firstChargeMishap'];
}

export interface StoredCharge extends ChargeRecord {
  /**
   * The Payment object as the look-ups answer it now (a cancellation changes it); ABORTED for a
   * decline. Null only in state exported before the fake kept one for every charge.
   */
  payment: ProviderPayment | null;
  cancellation: { canceledAt: Date; reason: string } | null;
}
