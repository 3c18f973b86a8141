import { FakePaymentProvider } from '@lib/sandbox';
import {
  PaymentProviderClient,
  ProviderUnavailableError,
  idempotencyKeyOf,
  outcomeOfPayment,
  parseProviderPayment,
} from './payment-provider.client';

/** A Payment object as the provider's reference shows one for an approved card payment. */
const DONE_PAYMENT = {
  mId: 'tosspayments',
  version: '2022-11-16',
  lastTransactionKey: 'D830460735FF8B6C8DFCF515F6AF31B8',
  paymentKey: 'dJv2eBNjG0Poxy1XQL8RJM5AenNplX87nO5Wmlg96RKwZz4Y',
  orderId: 'sub_0194a3f2-7c1e-7b3d-9a4f-2e8c6d1b5a90_001_r0',
  orderName: 'GuildKeeper PRO',
  type: 'BILLING',
  status: 'DONE',
  requestedAt: '2023-08-21T19:47:13+09:00',
  approvedAt: '2023-08-21T19:48:07+09:00',
  totalAmount: 15000,
  balanceAmount: 15000,
  receipt: { url: 'https://dashboard.tosspayments.com/receipt/redirection?transactionId=x&ref=PX' },
  cancels: null,
  failure: null,
};

describe(parseProviderPayment.name, () => {
  it('reads what billing uses of an approved payment', () => {
    expect(parseProviderPayment(DONE_PAYMENT)).toEqual({
      paymentKey: DONE_PAYMENT.paymentKey,
      orderId: DONE_PAYMENT.orderId,
      status: 'DONE',
      approvedAt: new Date('2023-08-21T10:48:07Z'),
      lastTransactionKey: 'D830460735FF8B6C8DFCF515F6AF31B8',
      totalAmount: 15000,
      receiptUrl: DONE_PAYMENT.receipt.url,
      failure: null,
      cancels: [],
    });
  });

  it('reads an aborted payment with its failure and no receipt', () => {
    const aborted = {
      ...DONE_PAYMENT,
      status: 'ABORTED',
      approvedAt: null,
      receipt: null,
      failure: { code: 'REJECT_CARD_PAYMENT', message: '한도초과 혹은 잔액부족으로 결제에 실패했습니다.' },
    };
    expect(parseProviderPayment(aborted)).toMatchObject({
      status: 'ABORTED',
      approvedAt: null,
      receiptUrl: null,
      failure: { code: 'REJECT_CARD_PAYMENT', message: aborted.failure.message },
    });
  });

  it('reads the times of cancellations', () => {
    const canceled = {
      ...DONE_PAYMENT,
      status: 'CANCELED',
      cancels: [{ cancelAmount: 15000, canceledAt: '2023-08-22T09:00:00+09:00', transactionKey: 'X' }],
    };
    expect(parseProviderPayment(canceled).cancels).toEqual([
      { canceledAt: new Date('2023-08-22T00:00:00Z') },
    ]);
  });

  it('shows no receipt link that is not a web address', () => {
    expect(
      parseProviderPayment({ ...DONE_PAYMENT, receipt: { url: 'javascript:alert(1)' } }).receiptUrl,
    ).toBeNull();
  });

  it.each<[string, unknown]>([
    ['not an object', 'DONE'],
    ['no paymentKey', { ...DONE_PAYMENT, paymentKey: undefined }],
    ['no orderId', { ...DONE_PAYMENT, orderId: '' }],
    ['an unknown status', { ...DONE_PAYMENT, status: 'APPROVED' }],
    ['a DONE payment without approvedAt', { ...DONE_PAYMENT, approvedAt: null }],
    ['an unreadable approvedAt', { ...DONE_PAYMENT, approvedAt: 'yesterday' }],
    ['a fractional totalAmount', { ...DONE_PAYMENT, totalAmount: 1.5 }],
    ['a cancel without its time', { ...DONE_PAYMENT, status: 'CANCELED', cancels: [{ cancelAmount: 1 }] }],
  ])('refuses %s as unusable', (_, data) => {
    expect(() => parseProviderPayment(data)).toThrow(ProviderUnavailableError);
  });
});

describe('PaymentProviderClient look-ups', () => {
  const provider = new FakePaymentProvider({ secretKey: 'test_sk_lookups' });
  let client: PaymentProviderClient;

  beforeAll(async () => {
    const { url } = await provider.start();
    client = new PaymentProviderClient({ baseUrl: url, secretKey: 'test_sk_lookups', timeoutMs: 5_000 });
  });
  afterAll(() => provider.stop());
  afterEach(() => provider.reset());

  async function approvedOrder(orderId: string): Promise<string> {
    const customerKey = 'cus_lookups';
    const { billingKey } = await client.issueBillingKey(provider.authorizeCard({ customerKey }), customerKey);
    const outcome = await client.charge(billingKey, { customerKey, amount: 9900, orderId, orderName: 'PRO' });
    if (outcome.kind !== 'approved') throw new Error(`expected an approval, got ${outcome.kind}`);
    return outcome.paymentKey;
  }

  it('finds a payment by its key and by its order id, with its receipt', async () => {
    const paymentKey = await approvedOrder('order-lookup-0001');

    const byKey = await client.getPayment(paymentKey);
    const byOrder = await client.getPaymentByOrderId('order-lookup-0001');

    expect(byKey).toEqual(byOrder);
    expect(byKey).toMatchObject({
      paymentKey,
      orderId: 'order-lookup-0001',
      status: 'DONE',
      totalAmount: 9900,
      receiptUrl: provider.payment(paymentKey)?.receipt?.url,
    });
  });

  it('answers null for a payment the provider does not know', async () => {
    expect(await client.getPayment('pay_unknown')).toBeNull();
    expect(await client.getPaymentByOrderId('order-never-sent')).toBeNull();
  });

  it('throws ProviderUnavailableError when the provider refuses our key or fails', async () => {
    const wrongKey = new PaymentProviderClient({
      baseUrl: provider.url,
      secretKey: 'test_sk_other',
      timeoutMs: 5_000,
    });
    await expect(wrongKey.getPaymentByOrderId('order-x-0001')).rejects.toThrow(ProviderUnavailableError);

    const stopped = new PaymentProviderClient({
      baseUrl: 'http://127.0.0.1:9',
      secretKey: 'k',
      timeoutMs: 1_000,
    });
    await expect(stopped.getPayment('pay_x')).rejects.toThrow(ProviderUnavailableError);
  });
});

describe(outcomeOfPayment.name, () => {
  const parsed = (overrides: object) => parseProviderPayment({ ...DONE_PAYMENT, ...overrides });

  it('reads DONE, and an approval canceled since, as approved with the receipt', () => {
    for (const status of ['DONE', 'CANCELED', 'PARTIAL_CANCELED']) {
      expect(outcomeOfPayment(parsed({ status }))).toEqual({
        kind: 'approved',
        paymentKey: DONE_PAYMENT.paymentKey,
        approvedAt: new Date('2023-08-21T10:48:07Z'),
        receiptUrl: DONE_PAYMENT.receipt.url,
      });
    }
  });

  it('reads ABORTED and EXPIRED as rejected with their failure', () => {
    const failure = { code: 'INVALID_STOPPED_CARD', message: 'stopped' };
    expect(outcomeOfPayment(parsed({ status: 'ABORTED', approvedAt: null, failure }))).toEqual({
      kind: 'rejected',
      status: 200,
      ...failure,
    });
    expect(outcomeOfPayment(parsed({ status: 'EXPIRED', approvedAt: null }))).toMatchObject({
      kind: 'rejected',
      code: 'EXPIRED',
    });
  });

  it('decides nothing while the provider has not', () => {
    for (const status of ['READY', 'IN_PROGRESS', 'WAITING_FOR_DEPOSIT']) {
      expect(outcomeOfPayment(parsed({ status, approvedAt: null }))).toBeNull();
    }
  });
});

describe(idempotencyKeyOf.name, () => {
  it('is the order id, within Toss’s 300 characters', () => {
    expect(idempotencyKeyOf('sub_x_001_r0')).toBe('sub_x_001_r0');
    expect(() => idempotencyKeyOf('')).toThrow(RangeError);
    expect(() => idempotencyKeyOf('k'.repeat(301))).toThrow(RangeError);
  });
});

describe('PaymentProviderClient charges', () => {
  const provider = new FakePaymentProvider({ secretKey: 'test_sk_charges' });
  let client: PaymentProviderClient;
  let billingKey: string;
  const customerKey = 'cus_charges';
  let seq = 0;
  const order = () => ({ customerKey, amount: 9900, orderId: `order-charge-${++seq}`, orderName: 'PRO' });

  beforeAll(async () => {
    const { url } = await provider.start();
    client = new PaymentProviderClient({ baseUrl: url, secretKey: 'test_sk_charges', timeoutMs: 5_000 });
  });
  beforeEach(async () => {
    provider.reset();
    ({ billingKey } = await client.issueBillingKey(provider.authorizeCard({ customerKey }), customerKey));
  });
  afterAll(() => provider.stop());

  it('reads an approval with its receipt, sending the order id as Idempotency-Key', async () => {
    const request = order();
    const outcome = await client.charge(billingKey, request);

    expect(outcome).toEqual({
      kind: 'approved',
      paymentKey: expect.any(String),
      approvedAt: expect.any(Date),
      receiptUrl: expect.stringContaining('/receipt/payments/'),
    });
    expect(provider.requestLog().at(-1)?.idempotencyKey).toBe(request.orderId);
  });

  it('reads a card decline as rejected', async () => {
    provider.rejectCharges({ code: 'INVALID_STOPPED_CARD', times: 1 });
    expect(await client.charge(billingKey, order())).toMatchObject({
      kind: 'rejected',
      status: 400,
      code: 'INVALID_STOPPED_CARD',
    });
  });

  it('reads a deleted billing key as rejected (NOT_FOUND_BILLING)', async () => {
    provider.deleteBillingKey(billingKey);
    expect(await client.charge(billingKey, order())).toMatchObject({
      kind: 'rejected',
      code: 'NOT_FOUND_BILLING',
    });
  });

  it.each([
    ['PROVIDER_ERROR', () => provider.failCharges({ code: 'PROVIDER_ERROR', times: 1 })],
    [
      'FORBIDDEN_CONSECUTIVE_REQUEST',
      () => provider.failCharges({ code: 'FORBIDDEN_CONSECUTIVE_REQUEST', times: 1 }),
    ],
    ['a lost answer', () => provider.loseChargeAnswers({ times: 1 })],
    ['DUPLICATED_ORDER_ID', () => provider.loseChargeAnswers({ answer: 'DUPLICATED_ORDER_ID', times: 1 })],
    [
      'ALREADY_PROCESSED_PAYMENT',
      () => provider.loseChargeAnswers({ answer: 'ALREADY_PROCESSED_PAYMENT', times: 1 }),
    ],
    ['a 503', () => provider.failNext({ route: 'charge', status: 503 })],
  ])('reads %s as unknown', async (_, arrange) => {
    arrange();
    expect(await client.charge(billingKey, order())).toMatchObject({ kind: 'unknown' });
  });

  it('reads another customer key as unknown: our data, not the card', async () => {
    expect(await client.charge(billingKey, { ...order(), customerKey: 'cus_other' })).toMatchObject({
      kind: 'unknown',
    });
  });
});
