import { loadTossPayments } from '@tosspayments/tosspayments-sdk';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runInNewContext } from 'node:vm';
import { FakePaymentProvider } from './fake-payment-provider';
import { SDK_SCRIPT_PATH, sdkScript } from './sdk-script';

const CUSTOMER = 'user_0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
const SUCCESS = 'https://dashboard.example/guilds/g/checkout?plan=PRO';
const FAIL = 'https://dashboard.example/guilds/g/checkout?plan=PRO&failed=1';

interface SdkError extends Error {
  code: string;
}
interface Payment {
  requestBillingAuth(request: unknown): Promise<void>;
  requestPayment(request: unknown): Promise<void>;
}
interface Sdk {
  payment(params: unknown): Payment;
  widgets(params: unknown): unknown;
}

/**
 * Runs the script as a browser would, loaded from `scriptUrl`: what it defines on `window`, and
 * every address it sends the browser to.
 */
function loadScript(source: string, scriptUrl: string) {
  const assigned: string[] = [];
  const window: Record<string, unknown> = {
    location: { href: 'https://dashboard.example/', assign: (url: string) => assigned.push(url) },
  };
  runInNewContext(source, { window, document: { currentScript: { src: scriptUrl } }, URL, Promise, Error });
  return { TossPayments: window.TossPayments as (clientKey: string) => Sdk, assigned };
}

/** What a call threw or rejected with (the SDK's error), or null when it did neither. */
async function failureOf(call: () => unknown): Promise<SdkError | null> {
  try {
    const result = call();
    if (result instanceof Promise) {
      // A request that navigates never settles: give it a turn, then call it accepted.
      const settled = await Promise.race([
        result.then(() => 'resolved'),
        new Promise((r) => setTimeout(r, 20)),
      ]);
      if (settled === 'resolved')
        throw new Error('requestBillingAuth resolved: the real SDK navigates instead');
    }
    return null;
  } catch (error) {
    return error as SdkError;
  }
}

describe("the sandbox's stand-in for the provider's JS SDK", () => {
  const served = sdkScript('/sandbox/card-widget');
  const scriptUrl = 'http://127.0.0.1:3000/sandbox/v2/standard';

  it('defines TossPayments, whose requestBillingAuth sends the browser to the card page with the widget query', async () => {
    const { TossPayments, assigned } = loadScript(served, scriptUrl);
    const payment = TossPayments('test_ck_sandbox').payment({ customerKey: CUSTOMER });
    expect(
      await failureOf(() =>
        payment.requestBillingAuth({
          method: 'CARD',
          successUrl: SUCCESS,
          failUrl: FAIL,
          customerName: 'Owner',
          windowTarget: 'self',
        }),
      ),
    ).toBeNull();
    expect(assigned).toHaveLength(1);
    const target = new URL(assigned[0]);
    expect(`${target.origin}${target.pathname}`).toBe('http://127.0.0.1:3000/sandbox/card-widget');
    expect(Object.fromEntries(target.searchParams)).toEqual({
      clientKey: 'test_ck_sandbox',
      customerKey: CUSTOMER,
      successUrl: SUCCESS,
      failUrl: FAIL,
    });
    expect((TossPayments as unknown as { ANONYMOUS: string }).ANONYMOUS).toBe('@@ANONYMOUS');
  });

  it('refuses what the real SDK refuses, with its error codes, and never navigates', async () => {
    const { TossPayments, assigned } = loadScript(served, scriptUrl);
    const sdk = TossPayments('test_ck_sandbox');
    const payment = sdk.payment({ customerKey: CUSTOMER });
    const billingAuth = (overrides: Record<string, unknown>) =>
      payment.requestBillingAuth({ method: 'CARD', successUrl: SUCCESS, failUrl: FAIL, ...overrides });
    const cases: [string, () => unknown][] = [
      ['INVALID_CLIENT_KEY', () => TossPayments('')],
      ['INSECURE_KEY_USAGE', () => TossPayments('test_sk_sandbox')],
      ['INVALID_CUSTOMER_KEY', () => sdk.payment({ customerKey: 'x' })],
      ['INVALID_CUSTOMER_KEY', () => sdk.payment({ customerKey: `user_${'a'.repeat(46)}` })],
      ['INVALID_CUSTOMER_KEY', () => sdk.payment({ customerKey: 'user id with spaces' })],
      ['INVALID_CUSTOMER_KEY', () => sdk.payment({})],
      ['NOT_SUPPORTED_METHOD', () => billingAuth({ method: 'TRANSFER' })],
      ['INCORRECT_SUCCESS_URL_FORMAT', () => billingAuth({ successUrl: '/back' })],
      ['INCORRECT_FAIL_URL_FORMAT', () => billingAuth({ failUrl: 'javascript:alert(1)' })],
      ['INVALID_PARAMETERS', () => payment.requestBillingAuth(undefined)],
      ['INVALID_PARAMETERS', () => billingAuth({ customerName: 'n'.repeat(101) })],
      ['INVALID_PARAMETERS', () => billingAuth({ windowTarget: 'popup' })],
      ['NOT_SUPPORTED_METHOD', () => payment.requestPayment({ method: 'CARD' })],
      ['NOT_SUPPORTED_METHOD', () => sdk.widgets({ customerKey: CUSTOMER })],
    ];
    for (const [code, call] of cases) {
      const failure = await failureOf(call);
      expect({ code, failure: failure?.code }).toEqual({ code, failure: code });
      expect(failure?.message).toEqual(expect.any(String));
    }
    expect(assigned).toEqual([]);
  });

  describe('served by the fake provider', () => {
    const provider = new FakePaymentProvider();
    let base: string;

    beforeAll(async () => {
      base = (await provider.start()).url;
    });
    afterAll(() => provider.stop());

    it('at /v2/standard on its own port, as JavaScript; the card page it opens takes the card and goes back', async () => {
      const response = await fetch(`${base}${SDK_SCRIPT_PATH}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      const { TossPayments, assigned } = loadScript(await response.text(), `${base}${SDK_SCRIPT_PATH}`);
      await failureOf(() =>
        TossPayments(provider.clientKey)
          .payment({ customerKey: CUSTOMER })
          .requestBillingAuth({ method: 'CARD', successUrl: SUCCESS, failUrl: FAIL }),
      );
      expect(assigned[0]).toMatch(new RegExp(`^${base}/card-widget\\?`));

      // The card page accepts exactly what the SDK sent, and comes back to successUrl with the auth key.
      const page = await fetch(assigned[0]);
      expect(page.status).toBe(200);
      const fields = new URLSearchParams(new URL(assigned[0]).search);
      fields.set('card_number', '4330123412341234');
      fields.set('expiry', '12/39');
      const back = await fetch(`${base}/card-widget`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: fields.toString(),
        redirect: 'manual',
      });
      expect(back.status).toBe(303);
      const location = new URL(back.headers.get('location')!);
      expect(location.searchParams.get('customerKey')).toBe(CUSTOMER);
      expect(location.searchParams.get('authKey')).toMatch(/^auth_/);
      expect(`${location.origin}${location.pathname}`).toBe('https://dashboard.example/guilds/g/checkout');
    });

    it('under another mount (the sandbox’s /sandbox), pointing at the card page beside it; reads only', async () => {
      const mounted = createServer((req, res) => provider.serveSdkScript(req, res));
      await new Promise<void>((resolve) => mounted.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(mounted.address() as AddressInfo).port}/sandbox/v2/standard`;
      try {
        const { TossPayments, assigned } = loadScript(await (await fetch(url)).text(), url);
        await failureOf(() =>
          TossPayments('test_ck_fake')
            .payment({ customerKey: CUSTOMER })
            .requestBillingAuth({ method: 'CARD', successUrl: SUCCESS, failUrl: FAIL }),
        );
        expect(new URL(assigned[0]).pathname).toBe('/sandbox/card-widget');
        const post = await fetch(url, { method: 'POST' });
        expect(post.status).toBe(405);
        expect(post.headers.get('allow')).toBe('GET, HEAD');
      } finally {
        await new Promise((resolve) => mounted.close(resolve));
      }
    });
  });

  it("loads through the provider's own npm loader with a custom src, as the dashboard loads it", async () => {
    const src = 'http://127.0.0.1:3000/sandbox/v2/standard';
    const assigned: string[] = [];
    const window: Record<string, unknown> = {
      location: { href: 'http://127.0.0.1:3000/', assign: (url: string) => assigned.push(url) },
    };
    // The loader appends <script src> to the head and waits for its load event and the global.
    const document = {
      querySelector: () => null,
      createElement: () => {
        const listeners = new Map<string, () => void>();
        return {
          src: '',
          addEventListener: (type: string, listener: () => void) => listeners.set(type, listener),
          removeEventListener: () => undefined,
          load(this: { src: string }) {
            runInNewContext(served, { window, document: { currentScript: this }, URL, Promise, Error });
            listeners.get('load')?.();
          },
        };
      },
      head: {
        appendChild: (script: { src: string; load: () => void }) => setTimeout(() => script.load(), 0),
      },
    };
    const globals = globalThis as Record<string, unknown>;
    Object.assign(globals, { window, document });
    try {
      const sdk = await loadTossPayments('test_ck_sandbox', { src });
      void sdk
        .payment({ customerKey: CUSTOMER })
        .requestBillingAuth({ method: 'CARD', successUrl: SUCCESS, failUrl: FAIL, windowTarget: 'self' });
      await new Promise((resolve) => setTimeout(resolve, 10));
    } finally {
      delete globals.window;
      delete globals.document;
    }
    expect(assigned).toHaveLength(1);
    expect(assigned[0]).toMatch(
      /^http:\/\/127\.0\.0\.1:3000\/sandbox\/card-widget\?clientKey=test_ck_sandbox&/,
    );
  });
});
