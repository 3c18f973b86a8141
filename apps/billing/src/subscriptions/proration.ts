import type { BillingPeriod } from './billing-period';

/**
 * The smallest amount Toss accepts for a card payment: below it the charge is refused with
 * `BELOW_MINIMUM_AMOUNT` ("신용카드는 결제금액이 100원 이상", docs.tosspayments.com/reference/error-codes).
 */
export const MIN_CARD_CHARGE_KRW = 100;

export interface UpgradeQuote {
  /** What the upgrade charges now, in won. */
  amount_krw: number;
  /** The exact prorated difference before rounding and the card minimum (for the record). */
  prorated_krw: number;
}

/**
 * What an upgrade charges now: the price difference of the two plans for the time left in the
 * current period, prorated by the millisecond (a period is a calendar month, 28 to 31 days, so a day
 * is not a fixed share of it, and a charge in the last hours of a period would otherwise cost a whole
 * day). Rounded up to the won, so the money collected never falls short of the time held at the
 * higher price, and never below the provider's card minimum: the last minutes of a period cost
 * MIN_CARD_CHARGE_KRW (a few won more than owed, rather than a higher plan for free).
 *
 * Time past the period's end (the renewal is charged up to 15 minutes later, or is retried while
 * past_due) is not counted here: that time belongs to the next period, which its renewal charges at
 * the plan then in force.
 */
export function upgradeQuote(
  fromPriceKrw: number,
  toPriceKrw: number,
  period: BillingPeriod,
  at: Date,
): UpgradeQuote {
  assertPrice(fromPriceKrw, 'fromPriceKrw');
  assertPrice(toPriceKrw, 'toPriceKrw');
  if (toPriceKrw <= fromPriceKrw) {
    throw new RangeError(`an upgrade costs more: ${toPriceKrw} is not above ${fromPriceKrw}`);
  }
  const length = period.end.getTime() - period.start.getTime();
  if (!(length > 0)) throw new RangeError('the period must end after it starts');
  const left = Math.min(Math.max(period.end.getTime() - at.getTime(), 0), length);
  // BigInt: the difference times the milliseconds of a month passes 2^53 for prices in the millions.
  const owed = BigInt(toPriceKrw - fromPriceKrw) * BigInt(left);
  const prorated = Number(ceilDiv(owed, BigInt(length)));
  return { amount_krw: Math.max(prorated, MIN_CARD_CHARGE_KRW), prorated_krw: prorated };
}

function ceilDiv(numerator: bigint, denominator: bigint): bigint {
  return (numerator + denominator - 1n) / denominator;
}

function assertPrice(price: number, name: string): void {
  if (!Number.isSafeInteger(price) || price < 0) {
    throw new RangeError(`${name} must be a whole number of won, got ${price}`);
  }
}
