import type { ProviderPayment } from '../provider/payment-provider.client';
import { claimNote, truthOf } from './provider-truth';

const payment = (overrides: Partial<ProviderPayment>): ProviderPayment => ({
  paymentKey: 'pay_1',
  orderId: 'order_1',
  status: 'DONE',
  approvedAt: new Date('2026-11-22T06:00:00Z'),
  lastTransactionKey: 'TX1',
  totalAmount: 9900,
  receiptUrl: null,
  failure: null,
  cancels: [],
  ...overrides,
});

describe(truthOf.name, () => {
  it('reads each status the provider reports as billing acts on it', () => {
    expect(truthOf(payment({}))).toEqual({
      kind: 'approved',
      orderId: 'order_1',
      paymentKey: 'pay_1',
      approvedAt: new Date('2026-11-22T06:00:00Z'),
    });
    expect(
      truthOf(
        payment({
          status: 'ABORTED',
          approvedAt: null,
          failure: { code: 'REJECT_CARD_PAYMENT', message: 'no' },
        }),
      ),
    ).toEqual({ kind: 'declined', orderId: 'order_1', code: 'REJECT_CARD_PAYMENT', message: 'no' });
    expect(truthOf(payment({ status: 'EXPIRED', approvedAt: null }))).toMatchObject({
      kind: 'declined',
      code: 'PAYMENT_EXPIRED',
    });
    const canceledAt = new Date('2026-11-23T01:00:00Z');
    for (const status of ['CANCELED', 'PARTIAL_CANCELED'] as const) {
      expect(truthOf(payment({ status, cancels: [{ canceledAt: new Date(0) }, { canceledAt }] }))).toEqual({
        kind: 'canceled',
        orderId: 'order_1',
        canceledAt,
      });
    }
    for (const status of ['READY', 'IN_PROGRESS', 'WAITING_FOR_DEPOSIT'] as const) {
      expect(truthOf(payment({ status, approvedAt: null }))).toEqual({
        kind: 'undecided',
        orderId: 'order_1',
        status,
      });
    }
  });

  it("notes a delivery's claim only where it differs from the provider's", () => {
    expect(claimNote('DONE', 'ABORTED')).toBe(' (the delivery said DONE)');
    expect(claimNote('DONE', 'DONE')).toBe('');
    expect(claimNote(null, 'DONE')).toBe('');
  });
});
