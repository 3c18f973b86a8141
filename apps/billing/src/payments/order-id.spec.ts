import { randomUUID } from 'node:crypto';
import { ORDER_ID_MAX_LENGTH, type OrderIdParts, formatOrderId, parseOrderId } from './order-id';

const SUBSCRIPTION = '0194a3f2-7c1e-7b3d-9a4f-2e8c6d1b5a90';
const PROVIDER_ALPHABET = /^[A-Za-z0-9_-]+$/;

describe(formatOrderId.name, () => {
  it('names the first charge of a subscription cycle 001, attempt r0', () => {
    expect(formatOrderId({ subscriptionId: SUBSCRIPTION, cycle: 1, retryNumber: 0 })).toBe(
      `sub_${SUBSCRIPTION}_001_r0`,
    );
  });

  it.each([
    [12, 3, `sub_${SUBSCRIPTION}_012_r3`],
    [999, 1, `sub_${SUBSCRIPTION}_999_r1`],
    [1000, 0, `sub_${SUBSCRIPTION}_1000_r0`],
    [7, 10, `sub_${SUBSCRIPTION}_007_r10`],
  ])('pads cycle %i to at least three digits (retry %i)', (cycle, retryNumber, expected) => {
    expect(formatOrderId({ subscriptionId: SUBSCRIPTION, cycle, retryNumber })).toBe(expected);
  });

  it('writes the subscription id in lower case so one subscription has one order id per attempt', () => {
    expect(formatOrderId({ subscriptionId: SUBSCRIPTION.toUpperCase(), cycle: 1, retryNumber: 0 })).toBe(
      `sub_${SUBSCRIPTION}_001_r0`,
    );
  });

  it.each<[string, Partial<OrderIdParts>]>([
    ['a subscription id that is not a UUID', { subscriptionId: 'not-a-uuid' }],
    ['a UUID without dashes', { subscriptionId: SUBSCRIPTION.replaceAll('-', '') }],
    ['a UUID in braces', { subscriptionId: `{${SUBSCRIPTION}}` }],
    ['an empty subscription id', { subscriptionId: '' }],
    ['cycle 0', { cycle: 0 }],
    ['a negative cycle', { cycle: -1 }],
    ['a fractional cycle', { cycle: 1.5 }],
    ['a NaN cycle', { cycle: Number.NaN }],
    ['a negative retry number', { retryNumber: -1 }],
    ['a fractional retry number', { retryNumber: 0.5 }],
    ['an infinite retry number', { retryNumber: Number.POSITIVE_INFINITY }],
    ['numbers too long for the provider', { cycle: 10 ** 12, retryNumber: 10 ** 10 }],
  ])('throws RangeError for %s', (_, override) => {
    expect(() =>
      formatOrderId({ subscriptionId: SUBSCRIPTION, cycle: 1, retryNumber: 0, ...override }),
    ).toThrow(RangeError);
  });
});

describe(parseOrderId.name, () => {
  it('reads the subscription, cycle and retry of an order id', () => {
    expect(parseOrderId(`sub_${SUBSCRIPTION}_012_r3`)).toEqual({
      subscriptionId: SUBSCRIPTION,
      cycle: 12,
      retryNumber: 3,
    });
    expect(parseOrderId(`sub_${SUBSCRIPTION}_1000_r0`)).toEqual({
      subscriptionId: SUBSCRIPTION,
      cycle: 1000,
      retryNumber: 0,
    });
  });

  it.each([
    ['an empty string', ''],
    ['an order from another system', 'ORD-20260228-000123'],
    ['a bad uuid', 'sub_0194a3f2-7c1e-7b3d-9a4f-2e8c6d1b5a9_001_r0'],
    ['a non-hex uuid', 'sub_0194a3f2-7c1e-7b3d-9a4f-2e8c6d1b5azz_001_r0'],
    ['an upper-case uuid', `sub_${SUBSCRIPTION.toUpperCase()}_001_r0`],
    ['cycle 000', `sub_${SUBSCRIPTION}_000_r0`],
    ['a cycle under three digits', `sub_${SUBSCRIPTION}_01_r0`],
    ['a four-digit cycle with a leading zero', `sub_${SUBSCRIPTION}_0001_r0`],
    ['a retry with a leading zero', `sub_${SUBSCRIPTION}_001_r01`],
    ['a missing retry', `sub_${SUBSCRIPTION}_001_r`],
    ['a missing retry marker', `sub_${SUBSCRIPTION}_001_0`],
    ['a negative retry', `sub_${SUBSCRIPTION}_001_r-1`],
    ['leading junk', `x_sub_${SUBSCRIPTION}_001_r0`],
    ['trailing junk', `sub_${SUBSCRIPTION}_001_r0_x`],
    ['a trailing newline', `sub_${SUBSCRIPTION}_001_r0\n`],
    ['an upper-case prefix', `SUB_${SUBSCRIPTION}_001_r0`],
    ['an unknown prefix', `upd_${SUBSCRIPTION}_001_r0`],
    ['an id longer than the provider allows', `sub_${SUBSCRIPTION}_${'1'.repeat(12)}_r${'1'.repeat(10)}`],
    ['a cycle beyond safe integers', `sub_${SUBSCRIPTION}_9999999999999999_r0`],
  ])('returns null for %s', (_, orderId) => {
    expect(parseOrderId(orderId)).toBeNull();
  });

  describe('with formatOrderId', () => {
    const samples: OrderIdParts[] = [
      { subscriptionId: SUBSCRIPTION, cycle: 1, retryNumber: 0 },
      { subscriptionId: randomUUID(), cycle: 2, retryNumber: 1 },
      { subscriptionId: randomUUID(), cycle: 12, retryNumber: 3 },
      { subscriptionId: randomUUID(), cycle: 13, retryNumber: 0 },
      { subscriptionId: randomUUID(), cycle: 100, retryNumber: 2 },
      { subscriptionId: randomUUID(), cycle: 999, retryNumber: 3 },
      { subscriptionId: randomUUID(), cycle: 1000, retryNumber: 0 },
      { subscriptionId: '00000000-0000-0000-0000-000000000000', cycle: 1, retryNumber: 0 },
      { subscriptionId: 'ffffffff-ffff-ffff-ffff-ffffffffffff', cycle: 10 ** 11, retryNumber: 10 ** 8 },
      { subscriptionId: randomUUID(), cycle: 1, retryNumber: 0, purpose: 'upgrade' },
      { subscriptionId: randomUUID(), cycle: 7, retryNumber: 2, purpose: 'upgrade' },
    ];

    it.each(samples)('round-trips cycle $cycle retry $retryNumber', (parts) => {
      const orderId = formatOrderId(parts);
      expect(parseOrderId(orderId)).toEqual(parts);
      expect(formatOrderId(parts)).toBe(orderId);
    });

    it.each(samples)(
      'stays within the provider limit of 64 characters of [A-Za-z0-9_-] (cycle $cycle)',
      (parts) => {
        const orderId = formatOrderId(parts);
        expect(ORDER_ID_MAX_LENGTH).toBe(64);
        expect(orderId.length).toBeLessThanOrEqual(64);
        expect(orderId).toMatch(PROVIDER_ALPHABET);
      },
    );

    it('gives every attempt of every cycle its own order id', () => {
      const orderIds = new Set<string>();
      for (let cycle = 1; cycle <= 24; cycle++) {
        for (let retryNumber = 0; retryNumber <= 3; retryNumber++) {
          orderIds.add(formatOrderId({ subscriptionId: SUBSCRIPTION, cycle, retryNumber }));
        }
      }
      expect(orderIds.size).toBe(24 * 4);
    });

    it('gives an upgrade another order id than the charge of its cycle', () => {
      const parts = { subscriptionId: SUBSCRIPTION, cycle: 3, retryNumber: 0 };
      const upgrade = formatOrderId({ ...parts, purpose: 'upgrade' });
      expect(upgrade).toBe(`upg_${SUBSCRIPTION}_003_r0`);
      expect(upgrade).not.toBe(formatOrderId(parts));
    });
  });
});
