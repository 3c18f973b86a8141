import { cardEntryFailure, openCardEntry } from './card-entry';

type Listener = () => void;

/** What a script the fake browser loads does to `window`. */
type Script = (window: Record<string, unknown>) => void;

/**
 * Just enough of a browser for the provider's npm loader: it appends a `<script src>` to the head
 * and waits for its load event and the `TossPayments` global. Scripts under `served` run when
 * appended; any other address fails to load. (The sandbox's own SDK script runs under this loader
 * in libs/sandbox/src/payment-provider/sdk-script.spec.ts.)
 */
function fakeBrowser(served: Record<string, Script>) {
  const appended: string[] = [];
  const window: Record<string, unknown> = {
    location: { href: 'http://127.0.0.1:3000/guilds/g/checkout?plan=PRO' },
  };
  const document = {
    querySelector: () => null,
    createElement: () => {
      const listeners: Record<string, Listener[]> = {};
      return {
        src: '',
        parentElement: null,
        addEventListener: (type: string, listener: Listener) => (listeners[type] ??= []).push(listener),
        removeEventListener: () => undefined,
        fire: (type: string) => listeners[type]?.forEach((listener) => listener()),
      };
    },
    head: {
      appendChild: (script: { src: string; fire: (type: string) => void }) => {
        appended.push(script.src);
        setTimeout(() => {
          const run = served[script.src];
          if (run === undefined) return script.fire('error');
          run(window);
          script.fire('load');
        }, 0);
      },
    },
  };
  return { window, document, appended };
}

const globals = globalThis as Record<string, unknown>;

/** The provider's SDK as far as the checkout uses it, recording every call; `refuse`: its error. */
function recordingSdk(calls: unknown[], refuse?: { code: string; message: string }): Script {
  return (window) => {
    window.TossPayments = (clientKey: string) => ({
      payment: (params: unknown) => {
        calls.push(['TossPayments', clientKey], ['payment', params]);
        return {
          requestBillingAuth: (request: unknown) => {
            calls.push(['requestBillingAuth', request]);
            if (refuse)
              return Promise.reject(Object.assign(new Error(refuse.message), { code: refuse.code }));
            // The real SDK navigates away: the promise never settles.
            return new Promise(() => undefined);
          },
        };
      },
    });
  };
}

/** Runs `body` with `browser` as the page's `window` and `document`. */
async function inBrowser<T>(browser: ReturnType<typeof fakeBrowser>, body: () => Promise<T>): Promise<T> {
  globals.window = browser.window;
  globals.document = browser.document;
  try {
    return await body();
  } finally {
    delete globals.window;
    delete globals.document;
  }
}

const ENTRY = {
  clientKey: 'test_ck_sandbox',
  customerKey: 'user_0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
  successUrl: 'http://127.0.0.1:3000/guilds/g/checkout?plan=PRO',
  failUrl: 'http://127.0.0.1:3000/guilds/g/checkout?plan=PRO&failed=1',
};

/** Whether the promise settled within a few turns (a request that navigates never does). */
async function settles(promise: Promise<unknown>): Promise<'resolved' | 'rejected' | 'pending'> {
  return Promise.race([
    promise.then(
      () => 'resolved' as const,
      () => 'rejected' as const,
    ),
    new Promise<'pending'>((resolve) => setTimeout(() => resolve('pending'), 50)),
  ]);
}

describe('card entry through the provider’s npm loader', () => {
  it('loads the SDK from the URL billing gave and asks it for the card form exactly as the provider documents', async () => {
    const sdkUrl = 'http://127.0.0.1:3000/sandbox/v2/standard';
    const calls: unknown[] = [];
    const browser = fakeBrowser({ [sdkUrl]: recordingSdk(calls) });
    const outcome = await inBrowser(browser, () => settles(openCardEntry({ ...ENTRY, sdkUrl })));
    expect(outcome).toBe('pending');
    expect(browser.appended).toEqual([sdkUrl]);
    expect(calls).toEqual([
      ['TossPayments', ENTRY.clientKey],
      ['payment', { customerKey: ENTRY.customerKey }],
      [
        'requestBillingAuth',
        { method: 'CARD', successUrl: ENTRY.successUrl, failUrl: ENTRY.failUrl, windowTarget: 'self' },
      ],
    ]);
  });

  it('shows the SDK’s own refusal, and a script that does not load', async () => {
    const sdkUrl = 'http://127.0.0.1:3001/v2/standard';
    const refusal = { code: 'USER_CANCEL', message: 'The customer closed the card form.' };
    const refused = await inBrowser(fakeBrowser({ [sdkUrl]: recordingSdk([], refusal) }), () =>
      openCardEntry({ ...ENTRY, sdkUrl }).then(
        () => null,
        (error: unknown) => error,
      ),
    );
    expect(cardEntryFailure(refused)).toEqual(refusal);

    const unreachable = await inBrowser(fakeBrowser({}), () =>
      openCardEntry({ ...ENTRY, sdkUrl: 'http://127.0.0.1:3002/v2/standard' }).then(
        () => null,
        (error: unknown) => error,
      ),
    );
    expect(cardEntryFailure(unreachable)).toEqual({
      code: 'SDK_UNAVAILABLE',
      message: expect.stringContaining('could not be loaded'),
    });
  });

  it('reads any error the provider throws as a code and a message', () => {
    expect(cardEntryFailure({ code: 'USER_CANCEL', message: 'closed' })).toEqual({
      code: 'USER_CANCEL',
      message: 'closed',
    });
    expect(cardEntryFailure(new Error('odd'))).toEqual({ code: 'UNKNOWN_ERROR', message: 'odd' });
    expect(cardEntryFailure('nothing')).toEqual({
      code: 'UNKNOWN_ERROR',
      message: 'The card form could not be opened.',
    });
  });
});
