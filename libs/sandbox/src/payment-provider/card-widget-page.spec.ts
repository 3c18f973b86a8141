import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TEST_CARDS } from './card-widget-page';
import { FakePaymentProvider } from './fake-payment-provider';

const AUTH = `Basic ${Buffer.from('test_sk_fake:').toString('base64')}`;
const CUSTOMER = 'user_0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
const SUCCESS = 'https://dashboard.example/guilds/g/checkout?plan=PRO&step=back';
const FAIL = 'https://dashboard.example/guilds/g/checkout?plan=PRO&step=failed';

describe('the fake provider’s card page', () => {
  const sut = new FakePaymentProvider({ slowCardDelayMs: 400 });
  let base: string;

  beforeAll(async () => {
    base = (await sut.start()).url;
  });
  afterAll(() => sut.stop());
  afterEach(() => sut.reset());

  const widgetQuery = (overrides: Record<string, string> = {}) =>
    new URLSearchParams({
      clientKey: sut.clientKey,
      customerKey: CUSTOMER,
      successUrl: SUCCESS,
      failUrl: FAIL,
      ...overrides,
    });

  async function submit(fields: Record<string, string>): Promise<Response> {
    return fetch(`${base}/card-widget`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...Object.fromEntries(widgetQuery()), ...fields }).toString(),
      redirect: 'manual',
    });
  }

  function issue(authKey: string) {
    return fetch(`${base}/v1/billing/authorizations/issue`, {
      method: 'POST',
      headers: { Authorization: AUTH, 'Content-Type': 'application/json' },
      body: JSON.stringify({ authKey, customerKey: CUSTOMER }),
    });
  }

  function charge(billingKey: string, orderId: string) {
    return fetch(`${base}/v1/billing/${billingKey}`, {
      method: 'POST',
      headers: { Authorization: AUTH, 'Content-Type': 'application/json' },
      body: JSON.stringify({ customerKey: CUSTOMER, amount: 9_900, orderId, orderName: 'Pro' }),
    });
  }

  it('shows a labelled card form that keeps where to come back', async () => {
    const response = await fetch(`${base}/card-widget?${widgetQuery().toString()}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/text\/html/);
    const html = await response.text();
    expect(html).toContain('<label for="card_number">Card number</label>');
    expect(html).toContain('<label for="expiry">Expiry date (MM/YY)</label>');
    expect(html).toContain(`value="${SUCCESS.replace(/&/g, '&amp;')}"`);
  });

  it('sends a registered card back with authKey and customerKey, which issue a billing key', async () => {
    const response = await submit({ card_number: '4330 1234 1234 1234', expiry: '12/39' });
    expect(response.status).toBe(303);
    const location = new URL(response.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe('https://dashboard.example/guilds/g/checkout');
    expect(location.searchParams.get('plan')).toBe('PRO');
    expect(location.searchParams.get('customerKey')).toBe(CUSTOMER);
    const issued = await issue(location.searchParams.get('authKey')!);
    expect(issued.status).toBe(200);
    expect(((await issued.json()) as { cardNumber: string }).cardNumber).toBe('43301234****123*');
  });

  it('keeps the return address’s own query as it was and appends its answer after it', async () => {
    const response = await fetch(`${base}/card-widget`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        ...Object.fromEntries(widgetQuery()),
        successUrl: 'https://dashboard.example/checkout?checkout=c%201&authKey=planted#top',
        card_number: '4330 1234 1234 1234',
        expiry: '12/39',
      }).toString(),
      redirect: 'manual',
    });
    const location = response.headers.get('location')!;
    const authKey = new URL(location).searchParams.getAll('authKey')[1];
    expect(location).toBe(
      `https://dashboard.example/checkout?checkout=c+1&authKey=planted&authKey=${encodeURIComponent(authKey)}` +
        `&customerKey=${CUSTOMER}`,
    );
  });

  it('gives the declined card an authKey whose billing-key issue the card company refuses', async () => {
    const response = await submit({ card_number: TEST_CARDS.declined, expiry: '12/39' });
    const authKey = new URL(response.headers.get('location')!).searchParams.get('authKey')!;
    const issued = await issue(authKey);
    expect(issued.status).toBe(400);
    expect(await issued.json()).toMatchObject({ code: 'REJECT_CARD_COMPANY' });
  });

  it.each([
    ['temporaryFailure', 0],
    ['lostAnswer', 1],
  ] as const)(
    'the %s card answers its first charge PROVIDER_ERROR (%i charged), then charges',
    async (card, charged) => {
      const response = await submit({ card_number: TEST_CARDS[card], expiry: '12/39' });
      const authKey = new URL(response.headers.get('location')!).searchParams.get('authKey')!;
      const { billingKey } = (await (await issue(authKey)).json()) as { billingKey: string };

      const first = await charge(billingKey, `order-${card}-1`);
      expect(first.status).toBe(400);
      expect(await first.json()).toMatchObject({ code: 'PROVIDER_ERROR' });
      expect(sut.approvedCharges()).toHaveLength(charged);
      expect((await charge(billingKey, `order-${card}-2`)).status).toBe(200);
    },
  );

  it('holds the slow card’s first charge, answer and webhook, and only the first', async () => {
    const received: string[] = [];
    const receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push((JSON.parse(Buffer.concat(chunks).toString()) as { eventType: string }).eventType);
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      sut.setWebhookUrl(`http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks/provider`);
      const response = await submit({ card_number: TEST_CARDS.slow, expiry: '12/39' });
      const authKey = new URL(response.headers.get('location')!).searchParams.get('authKey')!;
      const { billingKey } = (await (await issue(authKey)).json()) as { billingKey: string };

      const first = charge(billingKey, 'order-slow-1');
      await new Promise((resolve) => setTimeout(resolve, 150));
      // Decided already, but neither answered nor announced yet.
      expect(sut.charges()).toHaveLength(1);
      await sut.flushWebhooks();
      expect(received).toEqual([]);
      expect((await first).status).toBe(200);
      await sut.flushWebhooks();
      expect(received).toEqual(['PAYMENT.DONE']);

      const started = Date.now();
      expect((await charge(billingKey, 'order-slow-2')).status).toBe(200);
      expect(Date.now() - started).toBeLessThan(400);
    } finally {
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    }
  });

  it('sends a cancel to failUrl with the provider’s code', async () => {
    const response = await submit({ cancel: '1' });
    expect(response.status).toBe(303);
    const location = new URL(response.headers.get('location')!);
    expect(location.searchParams.get('step')).toBe('failed');
    expect(location.searchParams.get('code')).toBe('PAY_PROCESS_CANCELED');
    expect(location.searchParams.get('message')).toBeTruthy();
  });

  it('asks again for a malformed number or an expired card, saying which field is wrong', async () => {
    const response = await submit({ card_number: '1234', expiry: '01/20' });
    expect(response.status).toBe(400);
    const html = await response.text();
    expect(html).toContain('Enter the 16 digits of the card number.');
    expect(html).toContain('The card has expired.');
    expect(html).toContain('aria-describedby="card_number-error"');
  });

  it.each([
    ['an unknown client key', { clientKey: 'test_ck_other' }],
    ['a return address that is not http(s)', { successUrl: 'javascript:alert(1)' }],
  ])('answers an error page and no redirect for %s', async (_, overrides) => {
    const response = await fetch(`${base}/card-widget?${widgetQuery(overrides).toString()}`, {
      redirect: 'manual',
    });
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(await response.text()).toContain('Card registration unavailable');
  });
});
