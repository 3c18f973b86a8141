import { type IncomingHttpHeaders, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PROVIDER_SIGNATURE_HEADER, type TossWebhookBody } from '@lib/contracts';
import { FakePaymentProvider } from './fake-payment-provider';
import { sendJson } from '../../../../test/support/http-json';
import { TOSS_TRANSMISSION_HEADERS, resendDelaysMs, tossCreatedAt } from './webhook-toss';

const AUTH = { Authorization: `Basic ${Buffer.from('test_sk_fake:').toString('base64')}` };
/** Toss's `createdAt`: `yyyy-MM-dd'T'HH:mm:ss.SSSSSS`, no offset. */
const TOSS_CREATED_AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}$/;
/** A minute a millisecond: Toss's 3 days 19 hours of resends take 5.5 s. */
const FAST = 1 / 60_000;

interface Capture {
  url: string;
  received: { body: TossWebhookBody; headers: IncomingHttpHeaders }[];
  /** The answers to give, in order; 200 once they run out. */
  answers: number[];
  close(): Promise<void>;
}

async function captureServer(): Promise<Capture> {
  const capture = { received: [], answers: [] } as unknown as Capture;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as TossWebhookBody;
      capture.received.push({ body, headers: req.headers });
      res.writeHead(capture.answers.shift() ?? 200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  capture.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/provider`;
  capture.close = () => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(() => resolve()));
  };
  return capture;
}

describe("the fake provider's Toss webhooks", () => {
  let capture: Capture;
  let sut: FakePaymentProvider;
  let base: string;

  beforeEach(async () => {
    capture = await captureServer();
    sut = new FakePaymentProvider({ webhookStyle: 'lookup', webhookRetryTimeScale: FAST });
    base = (await sut.start()).url;
  });
  afterEach(async () => {
    await sut.stop();
    await capture.close();
  });

  async function approvedPayment(customerKey = 'cus_1') {
    const authKey = sut.authorizeCard({ customerKey });
    const issued = await sendJson(
      `${base}/v1/billing/authorizations/issue`,
      'POST',
      { authKey, customerKey },
      AUTH,
    );
    const billingKey = issued.body.billingKey as string;
    const charged = await sendJson(
      `${base}/v1/billing/${billingKey}`,
      'POST',
      { customerKey, amount: 9900, orderId: `order-toss-${Date.now()}`, orderName: 'Pro plan' },
      AUTH,
    );
    expect(charged.status).toBe(200);
    return { billingKey, paymentKey: charged.body.paymentKey as string };
  }

  it("scales Toss's seven resend intervals, 1 to 4096 minutes", () => {
    expect(resendDelaysMs(1)).toEqual([1, 4, 16, 64, 256, 1024, 4096].map((minutes) => minutes * 60_000));
    expect(resendDelaysMs(FAST)).toEqual([1, 4, 16, 64, 256, 1024, 4096]);
    expect(() => resendDelaysMs(0)).toThrow(/time scale/);
    expect(tossCreatedAt(new Date('2026-11-22T06:04:05.123Z'))).toBe('2026-11-22T15:04:05.123000');
  });

  it('announces a cancel with the whole Payment object and a deleted key, unsigned; a billing charge not at all', async () => {
    sut.setWebhookUrl(capture.url);
    const { billingKey, paymentKey } = await approvedPayment();
    await sut.flushWebhooks();
    expect(capture.received).toEqual([]);

    sut.cancelPayment(paymentKey, 'refund');
    sut.deleteBillingKey(billingKey);
    await sut.flushWebhooks();

    const byType = new Map(capture.received.map(({ body, headers }) => [body.eventType, { body, headers }]));
    expect([...byType.keys()].sort()).toEqual(['BILLING_DELETED', 'PAYMENT_STATUS_CHANGED']);
    const payment = byType.get('PAYMENT_STATUS_CHANGED')!;
    expect(payment.body).toEqual({
      eventType: 'PAYMENT_STATUS_CHANGED',
      createdAt: expect.stringMatching(TOSS_CREATED_AT),
      data: sut.payment(paymentKey),
    });
    expect(payment.body.data).toMatchObject({ status: 'CANCELED', lastTransactionKey: expect.any(String) });
    expect(byType.get('BILLING_DELETED')!.body).toEqual({
      eventType: 'BILLING_DELETED',
      createdAt: expect.stringMatching(TOSS_CREATED_AT),
      data: { billingKey, reason: null },
    });
    for (const { body, headers } of capture.received) {
      expect(body).not.toHaveProperty('eventId');
      expect(headers[PROVIDER_SIGNATURE_HEADER]).toBeUndefined();
      expect(headers['tosspayments-webhook-signature']).toBeUndefined();
      expect(headers[TOSS_TRANSMISSION_HEADERS.retriedCount]).toBe('0');
      expect(headers[TOSS_TRANSMISSION_HEADERS.id]).toMatch(/^whtrans_/);
    }
  });

  it('resends a delivery not answered 200 until one is, each transmission counted and recorded', async () => {
    const { paymentKey } = await approvedPayment();
    capture.answers.push(500, 503, 404);

    const transmissions = await sut.deliverTossWebhook(capture.url, sut.tossPaymentEvent(paymentKey));

    expect(transmissions.map(({ retriedCount, status }) => ({ retriedCount, status }))).toEqual([
      { retriedCount: 0, status: 500 },
      { retriedCount: 1, status: 503 },
      { retriedCount: 2, status: 404 },
      { retriedCount: 3, status: 200 },
    ]);
    expect(capture.received.map(({ headers }) => headers[TOSS_TRANSMISSION_HEADERS.retriedCount])).toEqual([
      '0',
      '1',
      '2',
      '3',
    ]);
    // The same body every time; a transmission id of its own each time.
    expect(new Set(capture.received.map(({ body }) => JSON.stringify(body))).size).toBe(1);
    expect(new Set(capture.received.map(({ headers }) => headers[TOSS_TRANSMISSION_HEADERS.id])).size).toBe(
      4,
    );
    expect(sut.webhookDeliveries()).toEqual(transmissions);
  });

  it('gives up after the seventh resend', async () => {
    const { paymentKey } = await approvedPayment();
    capture.answers.push(...Array<number>(20).fill(500));
    // A minute a tenth of a millisecond (at least 1 ms): the whole schedule in about half a second.
    sut.setWebhookRetryTimeScale(FAST / 10);

    const transmissions = await sut.deliverTossWebhook(capture.url, sut.tossPaymentEvent(paymentKey));

    expect(transmissions.map(({ retriedCount }) => retriedCount)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(capture.received).toHaveLength(8);
  });

  it('refuses to build events the state does not support', async () => {
    const { billingKey } = await approvedPayment();
    expect(() => sut.tossPaymentEvent('pay_unknown')).toThrow(/no payment/);
    expect(() => sut.tossBillingDeletedEvent(billingKey)).toThrow(/deleteBillingKey/);
  });
});
