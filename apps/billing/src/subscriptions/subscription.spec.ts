import { nextChargeOf, type PaidPlanCode, type SubscriptionRow } from './subscription';

const PRICES: Record<PaidPlanCode, number> = { PRO: 9_900, ENTERPRISE: 29_900 };
const priceOf = (plan: PaidPlanCode) => PRICES[plan];
const DUE = new Date('2026-12-25T00:05:00Z');

function row(change: Partial<SubscriptionRow>): SubscriptionRow {
  return {
    plan_code: 'ENTERPRISE',
    status: 'active',
    next_billing_at: DUE,
    cancel_at_period_end: false,
    pending_downgrade_to: null,
    ...change,
  } as SubscriptionRow;
}

describe(nextChargeOf.name, () => {
  it('charges the current plan at the next billing time', () => {
    expect(nextChargeOf(row({}), priceOf)).toEqual({
      at: DUE.toISOString(),
      plan: 'ENTERPRISE',
      amount_krw: 29_900,
    });
  });

  it('charges the lower plan when a downgrade is pending: it takes over before the renewal', () => {
    expect(nextChargeOf(row({ pending_downgrade_to: 'PRO' }), priceOf)).toMatchObject({
      plan: 'PRO',
      amount_krw: 9_900,
    });
  });

  it('names the retry of a past_due subscription', () => {
    expect(nextChargeOf(row({ status: 'past_due' }), priceOf)).toMatchObject({ at: DUE.toISOString() });
  });

  it.each([
    ['a cancel at period end', { cancel_at_period_end: true }],
    ['a first payment still processing', { status: 'pending' as const, next_billing_at: null }],
    ['an ended subscription', { status: 'canceled' as const, next_billing_at: null }],
  ])('charges nothing after %s', (_, change) => {
    expect(nextChargeOf(row(change), priceOf)).toBeNull();
  });
});
