import type { ChargeRejections } from './charge-rejections';
import { type ProviderPayment, abortedPayment, approvedPayment } from './payment-object';
import { type ProviderErrorBody, providerError } from './provider-error';
import type { StoredCharge } from './provider-state';
import type { ProviderStore } from './provider-store';
import { type JsonObject, parseJsonObject, requireString } from './request-body';

const ORDER_ID = /^[A-Za-z0-9_-]{6,64}$/;

export interface ChargeRequest {
  billingKey: string;
  idempotencyKey: string | null;
  raw: Buffer;
  /** Whole seconds. */
  now: Date;
  /** Where the fake serves receipt pages (payment-object.ts `receiptUrl`). */
  receiptBaseUrl: string;
}

/** A charge the card side decided: approved, or declined by a configured rejection. */
export interface ChargeDecision {
  status: number;
  body: ProviderPayment | ProviderErrorBody;
  charge: StoredCharge;
}

interface ChargeFields {
  customerKey: string;
  amount: number;
  orderId: string;
  orderName: string;
}

function chargeFields(body: JsonObject): ChargeFields {
  const customerKey = requireString(body, 'customerKey');
  const amount = body.amount;
  if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount <= 0) {
    throw providerError.invalidRequest('amount must be a positive integer.');
  }
  const orderId = requireString(body, 'orderId');
  if (!ORDER_ID.test(orderId)) {
    throw providerError.invalidRequest('orderId must be 6 to 64 characters of A-Z, a-z, 0-9, - and _.');
  }
  const orderName = requireString(body, 'orderName');
  const orderNameLength = [...orderName].length;
  if (orderNameLength < 1 || orderNameLength > 100) {
    throw providerError.invalidRequest('orderName must be 1 to 100 characters.');
  }
  return { customerKey, amount, orderId, orderName };
}

/**
 * `POST /v1/billing/{billingKey}`. Request errors (fields, unknown or deleted key, a reused orderId)
 * are thrown as `ProviderHttpError` and are no charge; approvals and configured declines are
 * decided charges, recorded in the store and returned.
 */
export function chargeBillingKey(
  request: ChargeRequest,
  store: ProviderStore,
  rejections: ChargeRejections,
): ChargeDecision {
  const fields = chargeFields(parseJsonObject(request.raw));
  const billingKey = store.billingKeys.get(request.billingKey);
  if (!billingKey || billingKey.deletedAt) throw providerError.notFoundBillingKey();
  if (billingKey.customerKey !== fields.customerKey) {
    throw providerError.invalidRequest('customerKey is not the billing key owner.');
  }
  if (store.approvedByOrderId.has(fields.orderId)) throw providerError.duplicatedOrderId();

  const common = {
    orderId: fields.orderId,
    orderName: fields.orderName,
    amount: fields.amount,
    billingKey: billingKey.billingKey,
    customerKey: fields.customerKey,
    idempotencyKey: request.idempotencyKey,
    cancellation: null,
  };
  const facts = {
    orderId: fields.orderId,
    orderName: fields.orderName,
    amount: fields.amount,
    billingKey,
    requestedAt: request.now,
    receiptBaseUrl: request.receiptBaseUrl,
  };
  const rejection = rejections.take(billingKey.billingKey, fields.customerKey);
  if (rejection) {
    const failure = { code: rejection.code, message: rejection.message };
    const charge: StoredCharge = {
      ...common,
      paymentKey: null,
      status: 'ABORTED',
      failure,
      approvedAt: null,
      payment: abortedPayment(facts, failure),
    };
    store.recordCharge(charge);
    return { status: rejection.status, body: failure, charge };
  }

  const payment = approvedPayment(facts);
  const charge: StoredCharge = {
    ...common,
    paymentKey: payment.paymentKey,
    status: 'DONE',
    failure: null,
    approvedAt: request.now,
    payment,
  };
  store.recordCharge(charge);
  return { status: 200, body: payment, charge };
}
