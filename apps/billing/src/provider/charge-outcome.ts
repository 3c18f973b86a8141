/**
 * How billing reads a refused charge (docs/behaviour.md, "Reading a charge's outcome").
 *
 * Only these codes of Toss's billing charge (`POST /v1/billing/{billingKey}`,
 * docs.tosspayments.com/reference/error-codes) say the card on file cannot be charged, and so are
 * declines: the first charge's subscription is canceled, a renewal goes past_due. Every other
 * refusal (PROVIDER_ERROR, FORBIDDEN_CONSECUTIVE_REQUEST, INVALID_API_KEY, UNAUTHORIZED_KEY,
 * DUPLICATED_ORDER_ID, ALREADY_PROCESSED_PAYMENT, NOT_MATCHES_CUSTOMER_KEY, INVALID_REQUEST, codes
 * we do not know), a 5xx and a time-out leave the outcome unknown: the charge may not have happened,
 * may happen if tried later, or may already have succeeded. The attempt stays pending until the
 * provider's look-up settles it.
 */
export const DECLINE_CODES: ReadonlySet<string> = new Set([
  // The card company refused the payment: limit, balance, its own reasons, a risky transaction.
  'REJECT_CARD_PAYMENT',
  'REJECT_CARD_COMPANY',
  'INVALID_REJECT_CARD',
  'FDS_ERROR',
  // The card itself: expired, suspended, lost or stolen, a number the company no longer knows.
  'INVALID_CARD_EXPIRATION',
  'INVALID_STOPPED_CARD',
  'INVALID_CARD_LOST_OR_STOLEN',
  'INVALID_CARD_NUMBER',
  'NOT_SUPPORTED_CARD_TYPE',
  // The card's own limits: the next retry (days later) may pass, this charge will not.
  'EXCEED_MAX_DAILY_PAYMENT_COUNT',
  'EXCEED_MAX_ONE_DAY_AMOUNT',
  'EXCEED_MAX_PAYMENT_AMOUNT',
  'EXCEED_MAX_AMOUNT',
  // The billing key is gone at the provider (the customer removed the card, or the provider did):
  // the card on file cannot be charged until the payer registers one again.
  'NOT_FOUND_BILLING',
]);

/*
 * Deliberately not declines:
 * - NOT_MATCHES_CUSTOMER_KEY: we sent another customer key than the one the billing key was
 *   issued for. That is our data, not the payer's card; canceling the payer for it would be wrong.
 *   It stays pending and the operator alert for unsettled charges fires.
 * - DUPLICATED_ORDER_ID, ALREADY_PROCESSED_PAYMENT: the order was already approved (or processed):
 *   the charge may well have succeeded. Only the look-up can tell.
 */

export type ChargeErrorReading = 'declined' | 'unknown';

/** A refused charge's HTTP status and Toss error code, read as a decline or as an unknown outcome. */
export function readChargeError(status: number, code: string): ChargeErrorReading {
  if (status < 400 || status >= 500) return 'unknown';
  return DECLINE_CODES.has(code) ? 'declined' : 'unknown';
}
