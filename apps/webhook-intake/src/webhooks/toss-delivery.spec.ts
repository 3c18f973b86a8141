import { readTossDelivery, type TossDelivery } from './toss-delivery';

const payment = (overrides: Record<string, unknown> = {}) => ({
  eventType: 'PAYMENT_STATUS_CHANGED',
  createdAt: '2026-11-22T15:04:05.123000',
  data: {
    paymentKey: 'pay_1',
    orderId: 'order_1',
    status: 'DONE',
    lastTransactionKey: 'TX1',
    approvedAt: '2026-11-22T15:04:05+09:00',
    totalAmount: 9900,
    ...overrides,
  },
});

function read(json: unknown): TossDelivery {
  const result = readTossDelivery(json, Buffer.from(JSON.stringify(json)));
  if ('problem' in result) throw new Error(result.problem);
  return result;
}

describe(readTossDelivery.name, () => {
  it('routes a payment change as a look-up of its payment key, and nothing else of the body', () => {
    const delivery = read(payment({ totalAmount: 1, customerKey: 'user_x' }));
    expect(delivery.routed).toEqual({
      event_id: delivery.changeKey,
      event_type: 'PAYMENT_STATUS_CHANGED',
      data: { paymentKey: 'pay_1', claimedStatus: 'DONE' },
      verification: 'lookup',
    });
    expect(delivery.changeKey).toMatch(/^PAYMENT_STATUS_CHANGED:[0-9a-f]{64}$/);
  });

  it('keys a resend as the change it repeats, and a later change of the payment as another', () => {
    const first = read(payment());
    // A resend: the same change, whatever else of the body differs (its createdAt, say).
    expect(read({ ...payment(), createdAt: '2026-11-22T15:05:05.000000' }).changeKey).toBe(first.changeKey);
    // Another status, another transaction, another payment: each a change of its own.
    const others = [
      payment({ status: 'CANCELED', lastTransactionKey: 'TX2' }),
      payment({ lastTransactionKey: 'TX2' }),
      payment({ status: 'CANCELED' }),
      payment({ paymentKey: 'pay_2' }),
    ].map((body) => read(body).changeKey);
    expect(new Set([first.changeKey, ...others]).size).toBe(5);
  });

  it('keys on the approval and last cancel times when the payment has no transaction key', () => {
    const approved = read(payment({ lastTransactionKey: null }));
    const canceled = read(
      payment({
        lastTransactionKey: null,
        status: 'CANCELED',
        cancels: [{ canceledAt: '2026-11-23T10:00:00+09:00' }],
      }),
    );
    const canceledAgain = read(
      payment({
        lastTransactionKey: null,
        status: 'CANCELED',
        cancels: [{ canceledAt: '2026-11-23T10:00:00+09:00' }],
      }),
    );
    expect(approved.changeKey).not.toBe(canceled.changeKey);
    expect(canceledAgain.changeKey).toBe(canceled.changeKey);
  });

  it('routes a deleted billing key keyed on the key alone', () => {
    const body = { eventType: 'BILLING_DELETED', createdAt: 'x', data: { billingKey: 'bk_1', reason: null } };
    const delivery = read(body);
    expect(delivery.routed).toMatchObject({ event_type: 'BILLING_DELETED', data: { billingKey: 'bk_1' } });
    expect(read({ ...body, createdAt: 'y' }).changeKey).toBe(delivery.changeKey);
  });

  it('records, without routing, a cancel event that names no payment and any type billing does not act on', () => {
    const cancel = read({
      eventType: 'CANCEL_STATUS_CHANGED',
      createdAt: 'x',
      data: { transactionKey: 'TX9', cancelStatus: 'DONE', cancelAmount: 9900 },
    });
    expect(cancel.routed).toBeNull();
    const named = read({
      eventType: 'CANCEL_STATUS_CHANGED',
      createdAt: 'x',
      data: { transactionKey: 'TX9', cancelStatus: 'DONE', paymentKey: 'pay_1' },
    });
    expect(named.routed).toMatchObject({ data: { paymentKey: 'pay_1', claimedStatus: 'DONE' } });
    const other = read({ eventType: 'METHOD_UPDATED', createdAt: 'x', data: { customerKey: 'c' } });
    expect(other).toMatchObject({ eventType: 'METHOD_UPDATED', routed: null });
  });

  it('finds a problem in a body that is not a Toss delivery', () => {
    const problems = [
      [],
      { eventType: 'PAYMENT_STATUS_CHANGED' },
      { data: {} },
      { eventId: 'evt_1', eventType: 'PAYMENT.DONE' },
      payment({ paymentKey: '' }),
      payment({ status: 7 }),
      { eventType: 'BILLING_DELETED', data: {} },
      { eventType: 'CANCEL_STATUS_CHANGED', data: {} },
    ].map((json) => readTossDelivery(json, Buffer.from(JSON.stringify(json))));
    expect(problems.every((result) => 'problem' in result)).toBe(true);
  });
});
