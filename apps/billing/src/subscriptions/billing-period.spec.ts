import {
  LAST_RETRY_SETTLE_MS,
  PAST_DUE_RETRY_DAYS,
  RENEWAL_JITTER_MAX_MS,
  addMonths,
  nextBillingAt,
  periodOfCycle,
  renewalGraceUntil,
  retryAt,
} from './billing-period';

const at = (iso: string) => new Date(iso);

describe(addMonths.name, () => {
  it.each([
    ['2026-03-15T10:20:30.456Z', 1, '2026-04-15T10:20:30.456Z'],
    ['2026-01-31T00:00:00.000Z', 1, '2026-02-28T00:00:00.000Z'],
    ['2028-01-31T00:00:00.000Z', 1, '2028-02-29T00:00:00.000Z'],
    ['2026-01-30T08:00:00.000Z', 1, '2026-02-28T08:00:00.000Z'],
    ['2026-03-31T23:59:59.999Z', 1, '2026-04-30T23:59:59.999Z'],
    ['2026-08-31T12:00:00.000Z', 1, '2026-09-30T12:00:00.000Z'],
    ['2026-12-31T06:00:00.000Z', 1, '2027-01-31T06:00:00.000Z'],
    ['2026-11-30T06:00:00.000Z', 3, '2027-02-28T06:00:00.000Z'],
    ['2028-02-29T06:00:00.000Z', 12, '2029-02-28T06:00:00.000Z'],
    ['2100-01-31T06:00:00.000Z', 1, '2100-02-28T06:00:00.000Z'],
    ['2000-01-31T06:00:00.000Z', 1, '2000-02-29T06:00:00.000Z'],
    ['2026-05-31T06:00:00.000Z', 0, '2026-05-31T06:00:00.000Z'],
    ['2026-03-31T06:00:00.000Z', -1, '2026-02-28T06:00:00.000Z'],
    ['2026-01-15T06:00:00.000Z', -13, '2024-12-15T06:00:00.000Z'],
  ])('moves %s by %i months to %s', (from, months, expected) => {
    expect(addMonths(at(from), months).toISOString()).toBe(expected);
  });

  it('counts in UTC whatever the local time zone says the day is', () => {
    // 23:30 UTC on the 31st is already the 1st in any zone east of UTC.
    expect(addMonths(at('2026-01-31T23:30:00.000Z'), 1).toISOString()).toBe('2026-02-28T23:30:00.000Z');
  });

  it('leaves its argument alone', () => {
    const date = at('2026-01-31T00:00:00.000Z');
    addMonths(date, 1);
    expect(date.toISOString()).toBe('2026-01-31T00:00:00.000Z');
  });

  it.each([0.5, Number.NaN, Number.POSITIVE_INFINITY])('refuses %p months', (months) => {
    expect(() => addMonths(at('2026-01-01T00:00:00.000Z'), months)).toThrow(RangeError);
  });

  it('refuses an invalid date', () => {
    expect(() => addMonths(new Date(Number.NaN), 1)).toThrow(RangeError);
  });
});

describe(periodOfCycle.name, () => {
  const anchor = at('2026-01-31T09:15:00.000Z');

  it('starts the first cycle at the anchor', () => {
    expect(periodOfCycle(anchor, 1)).toEqual({
      start: at('2026-01-31T09:15:00.000Z'),
      end: at('2026-02-28T09:15:00.000Z'),
    });
  });

  it('returns to the 31st after a short month instead of drifting to the 28th', () => {
    expect(periodOfCycle(anchor, 2)).toEqual({
      start: at('2026-02-28T09:15:00.000Z'),
      end: at('2026-03-31T09:15:00.000Z'),
    });
    expect(periodOfCycle(anchor, 3).end).toEqual(at('2026-04-30T09:15:00.000Z'));
  });

  it('ends cycle 12 and starts cycle 13 on the anchor day a year later', () => {
    expect(periodOfCycle(anchor, 12)).toEqual({
      start: at('2026-12-31T09:15:00.000Z'),
      end: at('2027-01-31T09:15:00.000Z'),
    });
    expect(periodOfCycle(anchor, 13)).toEqual({
      start: at('2027-01-31T09:15:00.000Z'),
      end: at('2027-02-28T09:15:00.000Z'),
    });
  });

  it('lands on Feb 29 in a leap year', () => {
    expect(periodOfCycle(anchor, 25).end).toEqual(at('2028-02-29T09:15:00.000Z'));
  });

  it('leaves no gap and no overlap between consecutive cycles', () => {
    for (let cycle = 1; cycle < 40; cycle++) {
      expect(periodOfCycle(anchor, cycle + 1).start).toEqual(periodOfCycle(anchor, cycle).end);
    }
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses cycle %p', (cycle) => {
    expect(() => periodOfCycle(anchor, cycle)).toThrow(RangeError);
  });
});

describe(nextBillingAt.name, () => {
  const periodEnd = at('2026-02-28T09:15:00.000Z');

  it('is the period end itself when the random draw is 0', () => {
    expect(nextBillingAt(periodEnd, () => 0)).toEqual(periodEnd);
  });

  it('stays under 15 minutes after the period end for the largest draw', () => {
    const latest = nextBillingAt(periodEnd, () => 0.999999);
    expect(RENEWAL_JITTER_MAX_MS).toBe(15 * 60_000);
    expect(latest.getTime() - periodEnd.getTime()).toBe(Math.floor(0.999999 * RENEWAL_JITTER_MAX_MS));
    expect(latest.getTime()).toBeLessThan(periodEnd.getTime() + RENEWAL_JITTER_MAX_MS);
  });

  it('adds whole milliseconds in proportion to the draw', () => {
    expect(nextBillingAt(periodEnd, () => 0.5)).toEqual(at('2026-02-28T09:22:30.000Z'));
    expect(nextBillingAt(periodEnd, () => 0.0000001).getTime()).toBe(periodEnd.getTime());
  });

  it('stays within bounds with the default random source', () => {
    for (let draw = 0; draw < 200; draw++) {
      const delay = nextBillingAt(periodEnd).getTime() - periodEnd.getTime();
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThan(RENEWAL_JITTER_MAX_MS);
      expect(Number.isInteger(delay)).toBe(true);
    }
  });
});

describe(retryAt.name, () => {
  const dueAt = at('2026-02-28T09:22:30.000Z');

  it.each([
    [1, '2026-03-01T09:22:30.000Z'],
    [2, '2026-03-03T09:22:30.000Z'],
    [3, '2026-03-05T09:22:30.000Z'],
  ])('schedules retry %i from the original due time, at %s', (retryNumber, expected) => {
    expect(retryAt(dueAt, retryNumber)).toEqual(at(expected));
  });

  it('follows PAST_DUE_RETRY_DAYS', () => {
    expect(PAST_DUE_RETRY_DAYS).toEqual([1, 3, 5]);
  });

  it('gives up after the third retry', () => {
    expect(retryAt(dueAt, 4)).toBeNull();
    expect(retryAt(dueAt, 5)).toBeNull();
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses retry number %p', (retryNumber) => {
    expect(() => retryAt(dueAt, retryNumber)).toThrow(RangeError);
  });
});

describe(renewalGraceUntil.name, () => {
  const periodEnd = at('2026-02-28T09:15:00.000Z');

  it('lasts past the latest renewal charge and the last past_due retry, by a day', () => {
    const grace = renewalGraceUntil(periodEnd);
    expect(grace).toEqual(at('2026-03-06T09:15:00.000Z'));
    expect(grace.getTime()).toBeGreaterThan(nextBillingAt(periodEnd, () => 0.999999).getTime());
    expect(grace.getTime() - LAST_RETRY_SETTLE_MS).toBe(
      retryAt(periodEnd, PAST_DUE_RETRY_DAYS.length)!.getTime(),
    );
  });
});
