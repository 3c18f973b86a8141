import { FakePaymentProvider } from '@lib/sandbox';
import {
  PaymentProviderClient,
  ProviderUnavailableError,
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
