import type { ChargeMishaps, ChargeRejection, ChargeRejections } from './charge-rejections';
import { type ProviderPayment, abortedPayment, approvedPayment } from './payment-object';
import { type ProviderErrorBody, TemporaryProviderError, providerError } from './provider-error';
import type { BillingKeyRecord, StoredCharge } from './provider-state';
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
  /** Set when the merchant gets this error instead of `body` (which replays of the key still get). */
  lostAnswer?: ChargeRejection;
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

/** The mishap the test card's billing key holds for its first charge, used up by this one. */
function takeFirstChargeMishap(
  billingKey: BillingKeyRecord,
): BillingKeyRecord['firstChargeMishap'] | undefined {
  const mishap = billingKey.firstChargeMishap;
  delete billingKey.firstChargeMishap;
  return mishap;
}

/**
 * `POST /v1/billing/{billingKey}`. Request errors (fields, unknown or deleted key, another
 * customer's key, a reused orderId) are thrown as `ProviderHttpError` and are no charge, and so is
 * an arranged temporary failure (a `TemporaryProviderError`); approvals and arranged declines are
 * decided charges, recorded in the store and returned. A lost answer is a decided charge whose
 * `lostAnswer` is what the merchant gets instead.
 */
export function chargeBillingKey(
  request: ChargeRequest,
  store: ProviderStore,
  rejections: ChargeRejections,
  mishaps: ChargeMishaps,
): ChargeDecision {
  const fields = chargeFields(parseJsonObject(request.raw));
  const billingKey = store.billingKeys.get(request.billingKey);
  if (!billingKey || billingKey.deletedAt) throw providerError.notFoundBilling();
  if (billingKey.customerKey !== fields.customerKey) throw providerError.notMatchesCustomerKey();
  // An order id that was approved (or approved and canceled since) cannot be charged again:
  // DUPLICATED_ORDER_ID (docs.tosspayments.com/reference/error-codes).
  if (store.approvedByOrderId.has(fields.orderId)) throw providerError.duplicatedOrderId();

  const firstChargeMishap = takeFirstChargeMishap(billingKey);
  const failure =
    mishaps.takeFailure(billingKey.billingKey, fields.customerKey) ??
    (firstChargeMishap === 'temporaryFailure' ? mishaps.failureFor('PROVIDER_ERROR') : undefined);
  if (failure) throw new TemporaryProviderError(failure.status, failure.code, failure.message);
  const lostAnswer =
    mishaps.takeLostAnswer(billingKey.billingKey, fields.customerKey) ??
    (firstChargeMishap === 'lostAnswer' ? mishaps.lostAnswerFor('PROVIDER_ERROR') : undefined);

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
    const decline = { code: rejection.code, message: rejection.message };
    const charge: StoredCharge = {
      ...common,
      paymentKey: null,
      status: 'ABORTED',
      failure: decline,
      approvedAt: null,
      payment: abortedPayment(facts, decline),
    };
    store.recordCharge(charge);
    return { status: rejection.status, body: decline, charge, lostAnswer };
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
  return { status: 200, body: payment, charge, lostAnswer };
}
