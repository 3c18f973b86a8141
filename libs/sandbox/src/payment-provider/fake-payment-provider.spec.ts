import { createHmac } from 'node:crypto';
import { type IncomingHttpHeaders, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PROVIDER_SIGNATURE_HEADER, type ProviderWebhookBody } from '@lib/contracts';
import { FakePaymentProvider } from './fake-payment-provider';
import { type Json, type JsonReply, sendJson } from '../../../../test/support/http-json';

const AUTH = `Basic ${Buffer.from('test_sk_fake:').toString('base64')}`;
const KST_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+09:00$/;

/** Resolves once `predicate` holds, checking every few milliseconds (for state, never for time). */
async function until(predicate: () => boolean): Promise<void> {
  while (!predicate()) await new Promise((resolve) => setTimeout(resolve, 5));
}

interface Capture {
  url: string;
  received: { body: Buffer; headers: IncomingHttpHeaders }[];
  close(): Promise<void>;
}

/** A receiver for webhooks that keeps the exact bytes and headers it got. */
async function captureServer(): Promise<Capture> {
  const received: Capture['received'] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ body: Buffer.concat(chunks), headers: req.headers });
      res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/provider`,
    received,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

describe(FakePaymentProvider.name, () => {
  const sut = new FakePaymentProvider();
  let base: string;

  beforeAll(async () => {
    base = (await sut.start()).url;
  });
  afterAll(() => sut.stop());
  afterEach(() => sut.reset());

  async function call(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = { Authorization: AUTH },
  ): Promise<JsonReply> {
    return sendJson(`${base}${path}`, method, body, headers);
  }

  const issue = (authKey: string, customerKey: string) =>
    call('POST', '/v1/billing/authorizations/issue', { authKey, customerKey });

  async function billingKeyFor(customerKey: string): Promise<string> {
    const reply = await issue(sut.authorizeCard({ customerKey }), customerKey);
    expect(reply.status).toBe(200);
    return reply.body.billingKey as string;
  }

  let orderSeq = 0;
  const order = (overrides: Json = {}): Json => ({
    customerKey: 'cus_1',
    amount: 9900,
    orderId: `order-${++orderSeq}-abc`,
    orderName: 'Pro plan, 1 month',
    ...overrides,
  });

  const charge = (billingKey: string, body: Json, idempotencyKey?: string) =>
    call(
      'POST',
      `/v1/billing/${billingKey}`,
      body,
      idempotencyKey === undefined
        ? { Authorization: AUTH }
        : { Authorization: AUTH, 'Idempotency-Key': idempotencyKey },
    );

  describe('authentication and routing', () => {
    it('answers 401 UNAUTHORIZED_KEY without the secret key as Basic user, and logs why', async () => {
      const missing = await call('GET', '/v1/payments/orders/order-1', undefined, {});
      const wrong = await call('GET', '/v1/payments/orders/order-1', undefined, {
        Authorization: `Basic ${Buffer.from('test_sk_other:').toString('base64')}`,
      });
      const bearer = await call('GET', '/v1/payments/orders/order-1', undefined, {
        Authorization: 'Bearer x',
      });

      for (const reply of [missing, wrong, bearer]) {
        expect(reply).toEqual({
          status: 401,
          body: { code: 'UNAUTHORIZED_KEY', message: expect.any(String) },
        });
      }
      expect(sut.requestLog().map((record) => record.authorization)).toEqual(['missing', 'wrong', 'wrong']);
    });

    it('answers 404 NOT_FOUND for unknown routes and 400 INVALID_REQUEST naming a bad field', async () => {
      expect(await call('GET', '/v1/nothing')).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
      expect(await call('GET', '/health', undefined, {})).toMatchObject({ status: 404 });

      const notJson = await call('POST', '/v1/billing/authorizations/issue', '{nope');
      expect(notJson).toMatchObject({ status: 400, body: { code: 'INVALID_REQUEST' } });
      const badField = await call('POST', '/v1/billing/authorizations/issue', {
        authKey: 1,
        customerKey: 'c',
      });
      expect(badField).toMatchObject({ status: 400, body: { code: 'INVALID_REQUEST' } });
      expect(badField.body.message).toContain('authKey');
    });
  });

  describe('POST /v1/billing/authorizations/issue', () => {
    it('exchanges the authKey for a billing key with the masked card, once', async () => {
      const authKey = sut.authorizeCard({ customerKey: 'cus_1' });

      const first = await issue(authKey, 'cus_1');

      expect(first).toEqual({
        status: 200,
        body: {
          mId: 'tvivarepublica',
          customerKey: 'cus_1',
          authenticatedAt: expect.stringMatching(KST_TIMESTAMP),
          method: '카드',
          billingKey: expect.stringMatching(/^bk_[A-Za-z0-9_-]{24}$/),
          cardCompany: '신한',
          cardNumber: '43301234****123*',
          card: {
            issuerCode: '41',
            acquirerCode: '41',
            number: '43301234****123*',
            cardType: '신용',
            ownerType: '개인',
          },
        },
      });
      expect(await issue(authKey, 'cus_1')).toMatchObject({
        status: 400,
        body: { code: 'INVALID_AUTH_KEY' },
      });
      expect(sut.billingKeys()).toEqual([
        {
          billingKey: first.body.billingKey,
          customerKey: 'cus_1',
          cardNumber: '43301234****123*',
          cardCompany: '신한',
          issuedAt: new Date(first.body.authenticatedAt as string),
          deletedAt: null,
        },
      ]);
    });

    it('issues a fresh billing key per authKey', async () => {
      const a = await billingKeyFor('cus_1');
      const b = await billingKeyFor('cus_1');
      expect(a).not.toBe(b);
    });

    it('rejects unknown and expired authKeys and another customer, leaving the authKey usable', async () => {
      const authKey = sut.authorizeCard({
        customerKey: 'cus_1',
        cardNumber: '9410987654321098',
        cardCompany: '현대',
      });

      expect(await issue('auth_unknown', 'cus_1')).toMatchObject({
        status: 400,
        body: { code: 'INVALID_AUTH_KEY' },
      });
      expect(await issue(authKey, 'cus_2')).toMatchObject({ status: 400, body: { code: 'INVALID_REQUEST' } });
      const issued = await issue(authKey, 'cus_1');
      expect(issued.body).toMatchObject({ cardCompany: '현대', cardNumber: '94109876****109*' });

      const expired = sut.authorizeCard({ customerKey: 'cus_1' });
      sut.expireAuthKey(expired);
      expect(await issue(expired, 'cus_1')).toMatchObject({
        status: 400,
        body: { code: 'EXPIRED_AUTH_KEY' },
      });
    });

    it('answers a card rejection with its code and uses the authKey up', async () => {
      const authKey = sut.authorizeCard({
        customerKey: 'cus_1',
        issueRejection: { code: 'INVALID_STOPPED_CARD', message: 'suspended' },
      });

      expect(await issue(authKey, 'cus_1')).toEqual({
        status: 400,
        body: { code: 'INVALID_STOPPED_CARD', message: 'suspended' },
      });
      expect(await issue(authKey, 'cus_1')).toMatchObject({
        status: 400,
        body: { code: 'INVALID_AUTH_KEY' },
      });
      expect(sut.billingKeys()).toEqual([]);
    });

    it('answers a card rejection with the status it was given', async () => {
      const authKey = sut.authorizeCard({
        customerKey: 'cus_1',
        issueRejection: { code: 'REJECT_CARD_COMPANY', message: 'refused', status: 403 },
      });
      expect(await issue(authKey, 'cus_1')).toEqual({
        status: 403,
        body: { code: 'REJECT_CARD_COMPANY', message: 'refused' },
      });
      expect(sut.billingKeys()).toEqual([]);
    });
  });

  describe('POST /v1/billing/{billingKey}', () => {
    it('approves a charge with the Payment object and records it', async () => {
      const billingKey = await billingKeyFor('cus_1');
      const body = order({ amount: 9900, orderId: 'order_0001', orderName: 'Pro plan' });

      const reply = await charge(billingKey, body);

      expect(reply).toEqual({
        status: 200,
        body: {
          mId: 'tvivarepublica',
          version: '2022-11-16',
          lastTransactionKey: expect.stringMatching(/^[0-9A-F]{32}$/),
          paymentKey: expect.stringMatching(/^pay_[A-Za-z0-9_-]{24}$/),
          orderId: 'order_0001',
          orderName: 'Pro plan',
          type: 'BILLING',
          status: 'DONE',
          requestedAt: expect.stringMatching(KST_TIMESTAMP),
          approvedAt: expect.stringMatching(KST_TIMESTAMP),
          totalAmount: 9900,
          balanceAmount: 9900,
          suppliedAmount: 9000,
          vat: 900,
          taxFreeAmount: 0,
          taxExemptionAmount: 0,
          method: '카드',
          currency: 'KRW',
          country: 'KR',
          useEscrow: false,
          cultureExpense: false,
          isPartialCancelable: true,
          card: {
            issuerCode: '41',
            acquirerCode: '41',
            number: '43301234****123*',
            approveNo: expect.stringMatching(/^\d{8}$/),
            cardType: '신용',
            ownerType: '개인',
            amount: 9900,
            installmentPlanMonths: 0,
            useCardPoint: false,
            isInterestFree: false,
            interestPayer: null,
            acquireStatus: 'READY',
          },
          virtualAccount: null,
          transfer: null,
          mobilePhone: null,
          giftCertificate: null,
          cashReceipt: null,
          cashReceipts: null,
          discount: null,
          easyPay: null,
          secret: null,
          metadata: null,
          cancels: null,
          failure: null,
          receipt: { url: `${base}/receipt/payments/${reply.body.paymentKey as string}` },
          checkout: null,
        },
      });
      expect(sut.charges()).toEqual([
        {
          paymentKey: reply.body.paymentKey,
          orderId: 'order_0001',
          orderName: 'Pro plan',
          amount: 9900,
          billingKey,
          customerKey: 'cus_1',
          idempotencyKey: null,
          status: 'DONE',
          failure: null,
          approvedAt: new Date(reply.body.approvedAt as string),
        },
      ]);
    });

    it('validates the fields and the Idempotency-Key length', async () => {
      const billingKey = await billingKeyFor('cus_1');
      const cases: [Json, string][] = [
        [order({ amount: 0 }), 'amount'],
        [order({ amount: 10.5 }), 'amount'],
        [order({ orderId: 'short' }), 'orderId'],
        [order({ orderId: 'has space 123' }), 'orderId'],
        [order({ orderName: '' }), 'orderName'],
        [order({ customerKey: undefined }), 'customerKey'],
      ];
      for (const [body, field] of cases) {
        const reply = await charge(billingKey, body);
        expect(reply).toMatchObject({ status: 400, body: { code: 'INVALID_REQUEST' } });
        expect(reply.body.message).toContain(field);
      }
      const tooLong = await charge(billingKey, order(), 'k'.repeat(301));
      expect(tooLong).toMatchObject({ status: 400, body: { code: 'INVALID_REQUEST' } });
      expect(sut.charges()).toEqual([]);
    });

    it("refuses another customer's key", async () => {
      const billingKey = await billingKeyFor('cus_1');
      const reply = await charge(billingKey, order({ customerKey: 'cus_2' }));
      expect(reply).toMatchObject({ status: 400, body: { code: 'INVALID_REQUEST' } });
    });

    it('replays a success for a repeated Idempotency-Key without charging again', async () => {
      const billingKey = await billingKeyFor('cus_1');
      const body = order();

      const first = await charge(billingKey, body, 'idem-1');
      const second = await charge(billingKey, body, 'idem-1');

      expect(second).toEqual(first);
      expect(sut.charges()).toHaveLength(1);
      expect(sut.charges()[0].idempotencyKey).toBe('idem-1');
      expect(
        sut
          .requestLog()
          .slice(-2)
          .map((record) => record.replayed),
      ).toEqual([false, true]);
    });

    it('replays a decline for a repeated Idempotency-Key, even after the decline rule is gone', async () => {
      const billingKey = await billingKeyFor('cus_1');
      sut.rejectCharges({ code: 'REJECT_CARD_PAYMENT', times: 1 });
      const body = order();

      const first = await charge(billingKey, body, 'idem-2');
      const second = await charge(billingKey, body, 'idem-2');

      expect(first).toEqual({
        status: 403,
        body: { code: 'REJECT_CARD_PAYMENT', message: expect.any(String) },
      });
      expect(second).toEqual(first);
      expect(sut.charges()).toEqual([
        expect.objectContaining({
          status: 'ABORTED',
          paymentKey: null,
          approvedAt: null,
          failure: first.body,
          idempotencyKey: 'idem-2',
        }),
      ]);
    });

    it('answers 409 for the same Idempotency-Key while the first answer is held, then replays it', async () => {
      const billingKey = await billingKeyFor('cus_1');
      sut.setChargeDelay(300);
      const body = order();

      const first = charge(billingKey, body, 'idem-3');
      await until(() => sut.charges().length === 1); // decided (charged) at once, answer still held
      const meanwhile = await charge(billingKey, body, 'idem-3');
      const firstReply = await first;
      const after = await charge(billingKey, body, 'idem-3');

      expect(meanwhile).toMatchObject({ status: 409, body: { code: 'IDEMPOTENT_REQUEST_PROCESSING' } });
      expect(firstReply).toMatchObject({ status: 200, body: { status: 'DONE' } });
      expect(after).toEqual(firstReply);
      expect(sut.approvedCharges()).toHaveLength(1);
    });

    it('answers DUPLICATED_ORDER_ID for an approved orderId sent again without its Idempotency-Key', async () => {
      const billingKey = await billingKeyFor('cus_1');
      const body = order();

      expect((await charge(billingKey, body, 'idem-4')).status).toBe(200);
      const again = await charge(billingKey, body, 'idem-5');
      const noKey = await charge(billingKey, body);

      expect(again).toMatchObject({ status: 400, body: { code: 'DUPLICATED_ORDER_ID' } });
      expect(noKey).toMatchObject({ status: 400, body: { code: 'DUPLICATED_ORDER_ID' } });
      expect(sut.charges()).toHaveLength(1);
    });

    it('lets a declined orderId be charged again', async () => {
      const billingKey = await billingKeyFor('cus_1');
      sut.rejectCharges({ customerKey: 'cus_1', code: 'EXCEED_MAX_AMOUNT', times: 1 });
      const body = order();

      expect(await charge(billingKey, body)).toMatchObject({
        status: 400,
        body: { code: 'EXCEED_MAX_AMOUNT' },
      });
      expect((await charge(billingKey, body)).status).toBe(200);
    });

    it('answers NOT_FOUND_BILLING_KEY for unknown and deleted billing keys', async () => {
      const billingKey = await billingKeyFor('cus_1');
      sut.deleteBillingKey(billingKey);

      expect(await charge('bk_unknown', order())).toMatchObject({
        status: 404,
        body: { code: 'NOT_FOUND_BILLING_KEY' },
      });
      expect(await charge(billingKey, order())).toMatchObject({
        status: 404,
        body: { code: 'NOT_FOUND_BILLING_KEY' },
      });
      expect(sut.billingKeys()[0].deletedAt).toBeInstanceOf(Date);
      expect(sut.charges()).toEqual([]);
    });

    it('declines matching charges as often as the rule says', async () => {
      const mine = await billingKeyFor('cus_1');
      const other = await billingKeyFor('cus_2');
      sut.rejectCharges({ billingKey: mine, code: 'INVALID_CARD_EXPIRATION', times: 2 });

      const replies = [
        await charge(mine, order()),
        await charge(other, order({ customerKey: 'cus_2' })),
        await charge(mine, order()),
        await charge(mine, order()),
      ];

      expect(replies.map((reply) => [reply.status, reply.body.code ?? reply.body.status])).toEqual([
        [400, 'INVALID_CARD_EXPIRATION'],
        [200, 'DONE'],
        [400, 'INVALID_CARD_EXPIRATION'],
        [200, 'DONE'],
      ]);
      expect(sut.charges().map((record) => record.status)).toEqual(['ABORTED', 'DONE', 'ABORTED', 'DONE']);
      expect(sut.approvedCharges()).toHaveLength(2);
    });

    it('keeps declining until the rules are cleared', async () => {
      const billingKey = await billingKeyFor('cus_1');
      sut.rejectCharges({ code: 'REJECT_CARD_COMPANY', message: 'no', status: 402 });

      expect(await charge(billingKey, order())).toEqual({
        status: 402,
        body: { code: 'REJECT_CARD_COMPANY', message: 'no' },
      });
      expect((await charge(billingKey, order())).status).toBe(402);
      sut.clearChargeRejections();
      expect((await charge(billingKey, order())).status).toBe(200);
    });

    it('answers injected outages before doing anything, then serves normally', async () => {
      const authKey = sut.authorizeCard({ customerKey: 'cus_1' });
      sut.failNext({ route: 'issue', status: 503 });
      expect(await issue(authKey, 'cus_1')).toMatchObject({ status: 503, body: { code: 'PROVIDER_ERROR' } });
      const issued = await issue(authKey, 'cus_1'); // the authKey was not used up
      expect(issued.status).toBe(200);
      const billingKey = issued.body.billingKey as string;

      sut.failNext({ route: 'charge', status: 502, times: 2 });
      const body = order();
      expect(await charge(billingKey, body, 'idem-6')).toMatchObject({
        status: 502,
        body: { code: 'PROVIDER_ERROR' },
      });
      expect((await charge(billingKey, body, 'idem-6')).status).toBe(502);
      expect(sut.charges()).toEqual([]);

      const retried = await charge(billingKey, body, 'idem-6');
      expect(retried).toMatchObject({ status: 200, body: { status: 'DONE' } });
      expect(sut.requestLog().at(-1)?.replayed).toBe(false);
      expect(sut.charges()).toHaveLength(1);
    });
  });

  describe('GET /v1/payments/orders/{orderId} and GET /v1/payments/{paymentKey}', () => {
    it('answers the approved payment, canceled once cancelPayment ran', async () => {
      const billingKey = await billingKeyFor('cus_1');
      const approved = await charge(billingKey, order({ orderId: 'order-lookup-1' }));
      const paymentKey = approved.body.paymentKey as string;

      expect(await call('GET', '/v1/payments/orders/order-lookup-1')).toEqual(approved);
      expect(await call('GET', `/v1/payments/${paymentKey}`)).toEqual(approved);
      sut.cancelPayment(paymentKey, 'operator refund');
      const canceled = await call('GET', '/v1/payments/orders/order-lookup-1');
      expect(canceled).toMatchObject({
        status: 200,
        body: {
          status: 'CANCELED',
          balanceAmount: 0,
          totalAmount: approved.body.totalAmount,
          cancels: [
            {
              cancelAmount: approved.body.totalAmount,
              cancelReason: 'operator refund',
              canceledAt: expect.stringMatching(KST_TIMESTAMP),
              transactionKey: expect.stringMatching(/^[0-9A-F]{32}$/),
              cancelStatus: 'DONE',
            },
          ],
        },
      });
      expect(canceled.body.lastTransactionKey).not.toBe(approved.body.lastTransactionKey);
      expect(await call('GET', `/v1/payments/${paymentKey}`)).toEqual(canceled);
      expect(sut.approvedCharges().map((record) => record.status)).toEqual(['CANCELED']);
    });

    it('answers a declined order as ABORTED with the decline in failure, and no receipt', async () => {
      const billingKey = await billingKeyFor('cus_1');
      sut.rejectCharges({ code: 'REJECT_CARD_PAYMENT' });
      const declined = await charge(billingKey, order({ orderId: 'order-declined' }));

      const lookedUp = await call('GET', '/v1/payments/orders/order-declined');
      expect(lookedUp).toMatchObject({
        status: 200,
        body: {
          orderId: 'order-declined',
          status: 'ABORTED',
          approvedAt: null,
          failure: declined.body,
          receipt: null,
          card: null,
        },
      });
      expect(await call('GET', `/v1/payments/${lookedUp.body.paymentKey as string}`)).toEqual(lookedUp);
    });

    it("finds an order's approval after an earlier decline of the same orderId", async () => {
      const billingKey = await billingKeyFor('cus_1');
      sut.rejectCharges({ code: 'REJECT_CARD_PAYMENT', times: 1 });
      await charge(billingKey, order({ orderId: 'order-twice' }));
      const approved = await charge(billingKey, order({ orderId: 'order-twice' }));

      expect(await call('GET', '/v1/payments/orders/order-twice')).toEqual(approved);
    });

    it('answers 404 NOT_FOUND_PAYMENT in the error body for unknown orders and payment keys', async () => {
      for (const path of ['/v1/payments/orders/order-unknown', '/v1/payments/pay_unknown']) {
        expect(await call('GET', path)).toEqual({
          status: 404,
          body: { code: 'NOT_FOUND_PAYMENT', message: expect.any(String) },
        });
      }
      expect(sut.payment('pay_unknown')).toBeNull();
      expect(sut.paymentByOrderId('order-unknown')).toBeNull();
    });

    it('serves the receipt page its receipt.url names, and 404 for others', async () => {
      const billingKey = await billingKeyFor('cus_1');
      const approved = await charge(billingKey, order({ orderId: 'order-receipt', orderName: '<b>Pro</b>' }));
      const url = (approved.body.receipt as { url: string }).url;

      const page = await fetch(url);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toContain('text/html');
      const html = await page.text();
      expect(html).toContain('order-receipt');
      expect(html).toContain('&#60;b&#62;Pro&#60;/b&#62;');
      expect((await fetch(`${base}/receipt/payments/pay_unknown`)).status).toBe(404);
    });
  });

  describe('webhooks', () => {
    let capture: Capture;

    beforeEach(async () => {
      capture = await captureServer();
    });
    afterEach(() => capture.close());

    it('signs the raw bytes with HMAC-SHA256 of the webhook secret, hex or base64, optionally prefixed', () => {
      const raw = '{"eventId":"evt_1","amount":9900,"name":"프로"}';
      const hmac = () => createHmac('sha256', 'test-webhook-secret').update(Buffer.from(raw, 'utf8'));

      expect(sut.signature(raw)).toBe(hmac().digest('hex'));
      expect(sut.signature(Buffer.from(raw))).toBe(hmac().digest('hex'));
      expect(sut.signature(raw, { encoding: 'base64' })).toBe(hmac().digest('base64'));
      expect(sut.signature(raw, { prefix: true })).toBe(`sha256=${hmac().digest('hex')}`);
      expect(sut.signature(raw, { encoding: 'base64', prefix: true })).toBe(
        `sha256=${hmac().digest('base64')}`,
      );
    });

    it('builds events from recorded state, and refuses events the state does not support', async () => {
      const billingKey = await billingKeyFor('cus_1');
      const approved = await charge(billingKey, order({ orderId: 'order-events-1' }));
      sut.rejectCharges({ code: 'REJECT_CARD_PAYMENT', times: 1 });
      await charge(billingKey, order({ orderId: 'order-events-2' }));
      const paymentKey = approved.body.paymentKey as string;

      expect(sut.paymentDoneEvent('order-events-1')).toEqual({
        eventId: expect.stringMatching(/^evt_/),
        eventType: 'PAYMENT.DONE',
        createdAt: expect.stringMatching(KST_TIMESTAMP),
        data: {
          paymentKey,
          orderId: 'order-events-1',
          status: 'DONE',
          approvedAt: approved.body.approvedAt,
          totalAmount: approved.body.totalAmount,
          customerKey: 'cus_1',
        },
      });
      expect(sut.paymentFailedEvent('order-events-2').data).toEqual({
        paymentKey: null,
        orderId: 'order-events-2',
        status: 'ABORTED',
        failure: { code: 'REJECT_CARD_PAYMENT', message: expect.any(String) },
        customerKey: 'cus_1',
      });
      expect(() => sut.paymentDoneEvent('order-events-2')).toThrow();
      expect(() => sut.paymentFailedEvent('order-events-1')).toThrow();
      expect(() => sut.paymentCanceledEvent(paymentKey)).toThrow(/cancelPayment/);
      expect(() => sut.billingKeyDeletedEvent(billingKey)).toThrow(/deleteBillingKey/);

      sut.cancelPayment(paymentKey, 'refund');
      sut.deleteBillingKey(billingKey);
      expect(sut.paymentCanceledEvent(paymentKey).data).toMatchObject({
        status: 'CANCELED',
        cancelReason: 'refund',
      });
      expect(sut.billingKeyDeletedEvent(billingKey).data).toEqual({
        billingKey,
        customerKey: 'cus_1',
        deletedAt: expect.stringMatching(KST_TIMESTAMP),
      });
      expect(sut.paymentDoneEvent('order-events-1').eventId).not.toBe(
        sut.paymentDoneEvent('order-events-1').eventId,
      );
    });

    it('sends the JSON body signed over exactly the bytes received', async () => {
      const event = sut.webhookEvent('BILLING_KEY.DELETED', {
        billingKey: 'bk_x',
        customerKey: '고객_1',
        deletedAt: '2026-11-22T15:04:05+09:00',
      });

      const reply = await sut.sendWebhook(capture.url, event, { encoding: 'base64', prefix: true });

      expect(reply).toEqual({ status: 200, body: 'ok' });
      const [{ body, headers }] = capture.received;
      expect(JSON.parse(body.toString('utf8'))).toEqual(event);
      expect(headers['content-type']).toBe('application/json');
      const expected = createHmac('sha256', 'test-webhook-secret').update(body).digest('base64');
      expect(headers[PROVIDER_SIGNATURE_HEADER]).toBe(`sha256=${expected}`);
    });

    it('sends a forged signature or a raw body as told', async () => {
      const event = sut.webhookEvent('BILLING_KEY.DELETED', {
        billingKey: 'bk_x',
        customerKey: 'cus_1',
        deletedAt: '2026-11-22T15:04:05+09:00',
      });
      await sut.sendWebhook(capture.url, event, { signature: 'forged' });
      await sut.sendRawWebhook(capture.url, Buffer.from('{"eventId":'), {
        'Content-Type': 'application/json',
      });

      expect(capture.received[0].headers[PROVIDER_SIGNATURE_HEADER]).toBe('forged');
      expect(capture.received[1].body.toString()).toBe('{"eventId":');
      expect(capture.received[1].headers[PROVIDER_SIGNATURE_HEADER]).toBeUndefined();
    });

    it('sends its own webhooks after state changes when a webhook URL is set, and records deliveries', async () => {
      sut.setWebhookUrl(capture.url);
      const billingKey = await billingKeyFor('cus_1');
      const approved = await charge(billingKey, order({ orderId: 'order-auto-1' }));
      sut.rejectCharges({ code: 'REJECT_CARD_PAYMENT', times: 1 });
      await charge(billingKey, order({ orderId: 'order-auto-2' }));
      sut.cancelPayment(approved.body.paymentKey as string, 'refund');
      sut.deleteBillingKey(billingKey);
      await sut.flushWebhooks();

      const events = capture.received.map(({ body, headers }) => {
        expect(headers[PROVIDER_SIGNATURE_HEADER]).toBe(sut.signature(body));
        return JSON.parse(body.toString('utf8')) as ProviderWebhookBody;
      });
      expect(events.map((event) => event.eventType).sort()).toEqual([
        'BILLING_KEY.DELETED',
        'PAYMENT.CANCELED',
        'PAYMENT.DONE',
        'PAYMENT.FAILED',
      ]);
      expect(sut.webhookDeliveries().map(({ status, error }) => ({ status, error }))).toEqual(
        Array(4).fill({ status: 200, error: null }),
      );

      await capture.close();
      await charge(await billingKeyFor('cus_1'), order());
      await sut.flushWebhooks();
      expect(sut.webhookDeliveries().at(-1)).toMatchObject({
        eventType: 'PAYMENT.DONE',
        status: null,
        error: expect.any(String),
      });
    });
  });

  describe('slow mode and stop', () => {
    it('charges at once but drops the held answer when the server stops; the key then replays', async () => {
      const provider = new FakePaymentProvider({ secretKey: 'test_sk_other' });
      const { url } = await provider.start();
      const auth = { Authorization: `Basic ${Buffer.from('test_sk_other:').toString('base64')}` };
      const authKey = provider.authorizeCard({ customerKey: 'cus_1' });
      const issued = await fetch(`${url}/v1/billing/authorizations/issue`, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: JSON.stringify({ authKey, customerKey: 'cus_1' }),
      });
      const { billingKey } = (await issued.json()) as { billingKey: string };
      provider.setChargeDelay(60_000);
      const send = (base: string) =>
        fetch(`${base}/v1/billing/${billingKey}`, {
          method: 'POST',
          headers: { ...auth, 'Content-Type': 'application/json', 'Idempotency-Key': 'idem-stop' },
          body: JSON.stringify(order()),
        });

      const held = send(url);
      await until(() => provider.charges().length === 1);
      await provider.stop();

      await expect(held).rejects.toThrow();
      expect(provider.approvedCharges()).toHaveLength(1);
      const restarted = await provider.start();
      try {
        const replay = await send(restarted.url);
        expect(replay.status).toBe(200);
        expect(provider.requestLog().at(-1)).toMatchObject({ replayed: true, idempotencyKey: 'idem-stop' });
        expect(provider.charges()).toHaveLength(1);
      } finally {
        await provider.stop();
      }
    });
  });
});
