import { periodOfCycle } from './billing-period';
import { MIN_CARD_CHARGE_KRW, upgradeQuote } from './proration';

const period = periodOfCycle(new Date('2026-04-01T00:00:00Z'), 1); // April: 30 days
const at = (iso: string) => new Date(iso);

describe(upgradeQuote.name, () => {
  it('charges the whole difference at the start of the period', () => {
    expect(upgradeQuote(9_900, 29_900, period, period.start)).toEqual({
      amount_krw: 20_000,
      prorated_krw: 20_000,
    });
  });

  it('charges the share of the difference for the time left, rounded up to the won', () => {
    // 10 of 30 days left: 20,000 / 3 = 6,666.67 won.
    expect(upgradeQuote(9_900, 29_900, period, at('2026-04-21T00:00:00Z'))).toEqual({
      amount_krw: 6_667,
      prorated_krw: 6_667,
    });
    // Half the period left to the millisecond.
    expect(upgradeQuote(9_900, 29_900, period, at('2026-04-16T00:00:00Z')).amount_krw).toBe(10_000);
  });

  it("charges the provider's card minimum for the last minutes of a period", () => {
    const quote = upgradeQuote(9_900, 29_900, period, at('2026-04-30T23:55:00Z'));
    expect(quote.prorated_krw).toBe(3); // 5 minutes of 30 days of 20,000 won, rounded up
    expect(quote.amount_krw).toBe(MIN_CARD_CHARGE_KRW);
    expect(MIN_CARD_CHARGE_KRW).toBe(100);
  });

  it('counts no time after the period ended or before it began beyond the period itself', () => {
    expect(upgradeQuote(9_900, 29_900, period, at('2026-05-01T00:10:00Z'))).toEqual({
      amount_krw: MIN_CARD_CHARGE_KRW,
      prorated_krw: 0,
    });
    expect(upgradeQuote(9_900, 29_900, period, at('2026-03-20T00:00:00Z')).amount_krw).toBe(20_000);
  });

  it('stays exact for prices whose product with a month of milliseconds passes 2^53', () => {
    // 5,000,000 won * 2,592,000,000 ms is above Number.MAX_SAFE_INTEGER; a third of the period left.
    const third = new Date(period.end.getTime() - (period.end.getTime() - period.start.getTime()) / 3);
    expect(upgradeQuote(0, 5_000_000, period, third).amount_krw).toBe(1_666_667);
  });

  it.each([
    ['a lower plan', 29_900, 9_900],
    ['the same price', 9_900, 9_900],
    ['a fractional price', 9_900.5, 29_900],
    ['a negative price', -1, 29_900],
  ])('refuses %s', (_, from, to) => {
    expect(() => upgradeQuote(from, to, period, period.start)).toThrow(RangeError);
  });
});
