/** Longest order id the payment provider accepts. */
export const ORDER_ID_MAX_LENGTH = 64;

const CYCLE_MIN_DIGITS = 3;

export interface OrderIdParts {
  subscriptionId: string;
  /** Billing cycle being charged, from 1. */
  cycle: number;
  /** 0 for the first attempt, then 1, 2, ... for retries of a failed charge. */
  retryNumber: number;
  /**
   * `upgrade`: the prorated charge of a higher plan within `cycle` (its retryNumber counts the
   * upgrade attempts of that cycle); absent or `period`: the charge of the cycle itself.
   */
  purpose?: PaymentPurpose;
}

export type PaymentPurpose = 'period' | 'upgrade';

/** The order id's first word for each purpose: `sub_` for a cycle, `upg_` for an upgrade. */
const PREFIXES: Record<PaymentPurpose, string> = { period: 'sub', upgrade: 'upg' };

// Lower case only: the order id is the provider's idempotency key, so one subscription must have
// exactly one spelling, and Postgres prints uuids in lower case.
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const UUID_PATTERN = new RegExp(`^${UUID}$`);
// Only the spellings formatOrderId produces (padding to three digits, no other leading zeros), so
// parsing and formatting again always gives the same id.
const ORDER_ID_PATTERN = new RegExp(
  `^(sub|upg)_(${UUID})_(\\d{${CYCLE_MIN_DIGITS}}|[1-9]\\d{${CYCLE_MIN_DIGITS},})_r(0|[1-9]\\d*)$`,
);

/**
 * The order id of one charge attempt: `sub_<subscription id>_<cycle, 3+ digits>_r<retry>`, e.g.
 * `sub_<id>_001_r0` for the first charge; an upgrade's is `upg_` and the same parts. Derived from the attempt rather than random, so a
 * charge repeated after a crash reuses the id and the provider refuses to take the money twice.
 */
export function formatOrderId({
  subscriptionId,
  cycle,
  retryNumber,
  purpose = 'period',
}: OrderIdParts): string {
  if (!UUID_PATTERN.test(subscriptionId.toLowerCase())) {
    throw new RangeError('subscriptionId must be a UUID');
  }
  if (!Number.isSafeInteger(cycle) || cycle < 1) {
    throw new RangeError(`cycle must be an integer from 1, got ${cycle}`);
  }
  if (!Number.isSafeInteger(retryNumber) || retryNumber < 0) {
    throw new RangeError(`retryNumber must be an integer from 0, got ${retryNumber}`);
  }
  const orderId = `${PREFIXES[purpose]}_${subscriptionId.toLowerCase()}_${String(cycle).padStart(CYCLE_MIN_DIGITS, '0')}_r${retryNumber}`;
  if (orderId.length > ORDER_ID_MAX_LENGTH) {
    throw new RangeError(
      `cycle and retryNumber together are too long for a ${ORDER_ID_MAX_LENGTH}-character order id`,
    );
  }
  return orderId;
}

/**
 * The attempt an order id names, or null when it is not one of ours: provider webhooks also carry
 * orders created elsewhere, which must be ignored rather than fail.
 */
export function parseOrderId(orderId: string): OrderIdParts | null {
  if (orderId.length > ORDER_ID_MAX_LENGTH) {
    return null;
  }
  const match = ORDER_ID_PATTERN.exec(orderId);
  if (match === null) {
    return null;
  }
  const [, prefix, subscriptionId, cycleDigits, retryDigits] = match;
  const cycle = Number(cycleDigits);
  const retryNumber = Number(retryDigits);
  if (cycle < 1 || !Number.isSafeInteger(cycle) || !Number.isSafeInteger(retryNumber)) {
    return null;
  }
  // A cycle's own charge leaves `purpose` out, as formatOrderId's callers do.
  return prefix === 'upg'
    ? { subscriptionId, cycle, retryNumber, purpose: 'upgrade' }
    : { subscriptionId, cycle, retryNumber };
}
