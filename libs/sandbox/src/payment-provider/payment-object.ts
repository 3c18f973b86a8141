import { randomBytes } from 'node:crypto';
import { cardCodes } from './card-details';
import { kstTimestamp } from './kst-time';
import type { BillingKeyRecord, ProviderFailure } from './provider-state';
import { approvalNumber, randomId } from './random-id';
import { API_VERSION, MERCHANT_ID, type ProviderCardSummary } from './wire-format';

/**
 * The provider's Payment object (docs.tosspayments.com/reference#payment-객체), as the billing charge,
 * the payment look-ups and the payment webhooks carry it. Fields the fake never fills (virtual
 * account, transfer, easy pay, ...) are there and null, as the provider sends them for a card
 * payment. Statuses a billing charge can reach: DONE, then CANCELED or PARTIAL_CANCELED; ABORTED
 * when it was declined. (READY, IN_PROGRESS, WAITING_FOR_DEPOSIT and EXPIRED belong to payments
 * through the payment window, which a billing-key charge never passes.)
 */
export interface ProviderPayment {
  mId: string;
  version: typeof API_VERSION;
  /** Set on every transaction; the provider's docs show one on an ABORTED payment too. */
  lastTransactionKey: string | null;
  paymentKey: string;
  orderId: string;
  orderName: string;
  /** `BILLING` for a charge on a billing key. */
  type: 'BILLING';
  status: PaymentStatus;
  requestedAt: string;
  approvedAt: string | null;
  totalAmount: number;
  balanceAmount: number;
  suppliedAmount: number;
  vat: number;
  taxFreeAmount: number;
  taxExemptionAmount: number;
  method: '카드';
  currency: 'KRW';
  country: 'KR';
  useEscrow: boolean;
  cultureExpense: boolean;
  isPartialCancelable: boolean;
  card: PaymentCard | null;
  virtualAccount: null;
  transfer: null;
  mobilePhone: null;
  giftCertificate: null;
  cashReceipt: null;
  cashReceipts: null;
  discount: null;
  easyPay: null;
  secret: null;
  metadata: null;
  cancels: PaymentCancel[] | null;
  failure: ProviderFailure | null;
  /** Null for a payment that was never approved. */
  receipt: { url: string } | null;
  checkout: null;
}

export type PaymentStatus = 'DONE' | 'CANCELED' | 'PARTIAL_CANCELED' | 'ABORTED' | 'EXPIRED';

export interface PaymentCard extends ProviderCardSummary {
  amount: number;
  approveNo: string;
  installmentPlanMonths: 0;
  useCardPoint: false;
  isInterestFree: false;
  interestPayer: null;
  /** The acquirer has not settled it yet (the provider's `READY`), or `CANCELED` after a refund. */
  acquireStatus: 'READY' | 'CANCELED';
}

/** One entry of `cancels`: each cancellation is a transaction of its own. */
export interface PaymentCancel {
  transactionKey: string;
  cancelReason: string;
  cancelAmount: number;
  taxFreeAmount: number;
  taxExemptionAmount: number;
  refundableAmount: number;
  easyPayDiscountAmount: number;
  canceledAt: string;
  receiptKey: string;
  cancelStatus: 'DONE';
  cancelRequestId: null;
}

export interface PaymentFacts {
  orderId: string;
  orderName: string;
  amount: number;
  billingKey: BillingKeyRecord;
  /** Whole seconds. */
  requestedAt: Date;
  /** Where the fake serves receipts, e.g. `http://127.0.0.1:1234/receipt`. */
  receiptBaseUrl: string;
}

/** The provider's transaction keys: 32 upper-case hex digits. */
export function transactionKey(): string {
  return randomBytes(16).toString('hex').toUpperCase();
}

export function receiptUrl(receiptBaseUrl: string, paymentKey: string): string {
  return `${receiptBaseUrl}/payments/${encodeURIComponent(paymentKey)}`;
}

function base(
  facts: PaymentFacts,
  paymentKey: string,
): Omit<
  ProviderPayment,
  'status' | 'approvedAt' | 'lastTransactionKey' | 'card' | 'failure' | 'receipt' | 'balanceAmount'
> {
  const suppliedAmount = Math.round(facts.amount / 1.1);
  return {
    mId: MERCHANT_ID,
    version: API_VERSION,
    paymentKey,
    orderId: facts.orderId,
    orderName: facts.orderName,
    type: 'BILLING',
    requestedAt: kstTimestamp(facts.requestedAt),
    totalAmount: facts.amount,
    suppliedAmount,
    vat: facts.amount - suppliedAmount,
    taxFreeAmount: 0,
    taxExemptionAmount: 0,
    method: '카드',
    currency: 'KRW',
    country: 'KR',
    useEscrow: false,
    cultureExpense: false,
    isPartialCancelable: true,
    virtualAccount: null,
    transfer: null,
    mobilePhone: null,
    giftCertificate: null,
    cashReceipt: null,
    cashReceipts: null,
    discount: null,
    easyPay: null,
    secret: null,
    metadata: null,
    cancels: null,
    checkout: null,
  };
}

/** A charge the card company approved, at `requestedAt` (the fake decides at once). */
export function approvedPayment(facts: PaymentFacts): ProviderPayment {
  const paymentKey = randomId('pay_');
  return {
    ...base(facts, paymentKey),
    status: 'DONE',
    approvedAt: kstTimestamp(facts.requestedAt),
    lastTransactionKey: transactionKey(),
    balanceAmount: facts.amount,
    card: {
      ...cardCodes(facts.billingKey.cardCompany),
      number: facts.billingKey.cardNumber,
      cardType: '신용',
      ownerType: '개인',
      amount: facts.amount,
      approveNo: approvalNumber(),
      installmentPlanMonths: 0,
      useCardPoint: false,
      isInterestFree: false,
      interestPayer: null,
      acquireStatus: 'READY',
    },
    failure: null,
    receipt: { url: receiptUrl(facts.receiptBaseUrl, paymentKey) },
  };
}

/**
 * A declined charge as a look-up shows it: ABORTED with the decline in `failure`. The provider's
 * docs do not say what a declined billing charge's card and receipt fields hold; the fake takes the
 * stricter reading (none: nothing was approved), so a reader cannot depend on them.
 */
export function abortedPayment(facts: PaymentFacts, failure: ProviderFailure): ProviderPayment {
  return {
    ...base(facts, randomId('pay_')),
    status: 'ABORTED',
    approvedAt: null,
    lastTransactionKey: transactionKey(),
    balanceAmount: facts.amount,
    card: null,
    failure: { ...failure },
    receipt: null,
  };
}

/** The whole remaining amount refunded: CANCELED, balance 0, the cancellation in `cancels`. */
export function canceledPayment(payment: ProviderPayment, canceledAt: Date, reason: string): ProviderPayment {
  const cancel: PaymentCancel = {
    transactionKey: transactionKey(),
    cancelReason: reason,
    cancelAmount: payment.balanceAmount,
    taxFreeAmount: 0,
    taxExemptionAmount: 0,
    refundableAmount: 0,
    easyPayDiscountAmount: 0,
    canceledAt: kstTimestamp(canceledAt),
    receiptKey: randomId('rcpt_'),
    cancelStatus: 'DONE',
    cancelRequestId: null,
  };
  return {
    ...payment,
    status: 'CANCELED',
    balanceAmount: 0,
    lastTransactionKey: cancel.transactionKey,
    card: payment.card && { ...payment.card, acquireStatus: 'CANCELED' },
    cancels: [...(payment.cancels ?? []), cancel],
  };
}

/** Where the fake serves a payment's receipt page: `<fake>/receipt/payments/{paymentKey}`. */
export const RECEIPT_PATH = '/receipt';

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** A plain receipt page, as the link in `receipt.url` opens one at the provider. */
export function receiptPage(payment: ProviderPayment): string {
  const rows: [string, string][] = [
    ['Order', payment.orderName],
    ['Order id', payment.orderId],
    ['Amount', `${payment.totalAmount.toLocaleString('en-US')} ${payment.currency}`],
    ['Status', payment.status],
    ['Approved at', payment.approvedAt ?? '-'],
    ['Card', payment.card?.number ?? '-'],
    ['Approval number', payment.card?.approveNo ?? '-'],
  ];
  const body = rows
    .map(([name, value]) => `<tr><th>${escapeHtml(name)}</th><td>${escapeHtml(value)}</td></tr>`)
    .join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Receipt</title></head><body><h1>Card receipt (sandbox)</h1><table>${body}</table></body></html>`;
}
