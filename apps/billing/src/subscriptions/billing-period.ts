const MS_PER_DAY = 86_400_000;

/** Upper bound (exclusive) of the delay added to a period end before the renewal charge. */
export const RENEWAL_JITTER_MAX_MS = 15 * 60_000;

/**
 * Days after the due time at which a failed renewal charge is tried again; retry n waits
 * `PAST_DUE_RETRY_DAYS[n - 1]` days. After the last one the subscription is canceled.
 */
export const PAST_DUE_RETRY_DAYS = [1, 3, 5] as const;

/**
 * How long after the last past_due retry was due a renewing licence still stays in force: time for
 * that charge to be answered (or, unanswered, re-sent and settled) and for a late job to catch up.
 */
export const LAST_RETRY_SETTLE_MS = MS_PER_DAY;

export interface BillingPeriod {
  start: Date;
  end: Date;
}

/**
 * Calendar months later in UTC, keeping the time of day. A day that the target month lacks becomes
 * its last day (Jan 31 + 1 month is Feb 28 or 29), where `Date` would roll over into March.
 */
export function addMonths(date: Date, months: number): Date {
  assertValidDate(date, 'date');
  if (!Number.isInteger(months)) {
    throw new RangeError(`months must be an integer, got ${months}`);
  }
  const result = new Date(date.getTime());
  // Day 1 exists in every month, so moving the month cannot overflow before the day is clamped.
  result.setUTCDate(1);
  result.setUTCMonth(result.getUTCMonth() + months);
  const lastDay = daysInUtcMonth(result.getUTCFullYear(), result.getUTCMonth());
  result.setUTCDate(Math.min(date.getUTCDate(), lastDay));
  return result;
}

/**
 * Bounds of billing cycle `cycle` (the first is 1). Always counted from the anchor rather than
 * from the previous period's end, so a subscription started on the 31st returns to the 31st after
 * a short month instead of staying on the 28th for good.
 */
export function periodOfCycle(anchor: Date, cycle: number): BillingPeriod {
  if (!Number.isInteger(cycle) || cycle < 1) {
    throw new RangeError(`cycle must be an integer from 1, got ${cycle}`);
  }
  return { start: addMonths(anchor, cycle - 1), end: addMonths(anchor, cycle) };
}

/**
 * When to charge for the next period: the current period's end plus up to 15 minutes of jitter, so the many
 * subscriptions started in the same moment (a launch, a promotion) do not all hit the payment
 * provider in the same second at every renewal.
 */
export function nextBillingAt(periodEnd: Date, random: () => number = Math.random): Date {
  assertValidDate(periodEnd, 'periodEnd');
  return new Date(periodEnd.getTime() + Math.floor(random() * RENEWAL_JITTER_MAX_MS));
}

/**
 * The subscription columns of a period it has been paid for: its bounds, and when the next one is
 * charged (`nextBillingAt`). A first charge and every renewal set them the same way.
 */
export function periodColumns(period: BillingPeriod): {
  current_period_start: Date;
  current_period_end: Date;
  next_billing_at: Date;
} {
  return {
    current_period_start: period.start,
    current_period_end: period.end,
    next_billing_at: nextBillingAt(period.end),
  };
}

/**
 * When retry `retryNumber` (1-based) of a failed renewal charge is due, or null once the retries
 * are used up and the subscription is to be canceled. Counted from the original due time, not the
 * previous attempt, so a slow or late attempt does not push back the rest of the schedule.
 */
export function retryAt(dueAt: Date, retryNumber: number): Date | null {
  assertValidDate(dueAt, 'dueAt');
  if (!Number.isInteger(retryNumber) || retryNumber < 1) {
    throw new RangeError(`retryNumber must be an integer from 1, got ${retryNumber}`);
  }
  if (retryNumber > PAST_DUE_RETRY_DAYS.length) {
    return null;
  }
  // Whole 24-hour days: UTC has no daylight-saving shifts to account for.
  return new Date(dueAt.getTime() + PAST_DUE_RETRY_DAYS[retryNumber - 1] * MS_PER_DAY);
}

/**
 * Until when the licence of a subscription that renews stays in force after its period ends
 * (docs/decisions/licence-through-renewals.md): through the jittered renewal charge and every
 * past_due retry, so a guild keeps its plan until billing says the subscription ended. Past it the
 * licence lapses even if billing never said so, which bounds what a stalled billing can give away.
 */
export function renewalGraceUntil(periodEnd: Date): Date {
  const lastRetry = retryAt(periodEnd, PAST_DUE_RETRY_DAYS.length)!;
  return new Date(lastRetry.getTime() + LAST_RETRY_SETTLE_MS);
}

function daysInUtcMonth(year: number, monthIndex: number): number {
  const lastOfMonth = new Date(0);
  // Day 0 of the next month is the last day of this one; setUTCFullYear, unlike Date.UTC, does not
  // map years 0-99 to 1900-1999.
  lastOfMonth.setUTCFullYear(year, monthIndex + 1, 0);
  return lastOfMonth.getUTCDate();
}

function assertValidDate(date: Date, name: string): void {
  if (Number.isNaN(date.getTime())) {
    throw new RangeError(`${name} must be a valid date`);
  }
}
