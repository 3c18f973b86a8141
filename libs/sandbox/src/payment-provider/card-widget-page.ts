import type { AuthorizeCardOptions } from './fake-payment-provider';

/** Where the fake serves its card page on its own port (the sandbox mounts it elsewhere too). */
export const CARD_WIDGET_PATH = '/card-widget';

/** The sandbox's test cards: what each one does, as the page lists them. */
export const TEST_CARDS = {
  /** Registered and charged at once. */
  success: '4330123412341234',
  /** The card company refuses it: the billing-key issue answers `REJECT_CARD_COMPANY`. */
  declined: '4000000000000002',
  /** Registered; its first charge is answered (and its webhook sent) only after a long delay. */
  slow: '4000000000000077',
  /** Registered; its first charge is not made and is answered 400 PROVIDER_ERROR (try again later). */
  temporaryFailure: '4000000000000119',
  /** Registered; its first charge is made but answered 400 PROVIDER_ERROR (the answer is lost). */
  lostAnswer: '4000000000000127',
} as const;

const DECLINE_CODE = 'REJECT_CARD_COMPANY';
const CANCEL_CODE = 'PAY_PROCESS_CANCELED';

export interface CardWidgetContext {
  clientKey: string;
  /** How long the slow card's first charge is held: longer than the merchant's time-out. */
  slowChargeDelayMs: number;
  authorizeCard: (options: AuthorizeCardOptions) => string;
}

export type CardWidgetAnswer = { status: 303; location: string } | { status: 200 | 400; html: string };

interface WidgetRequest {
  clientKey: string;
  customerKey: string;
  successUrl: URL;
  failUrl: URL;
}

/**
 * The provider's card widget in its billing-auth flow (`requestBillingAuth`), as a plain page: the
 * merchant sends the browser here with its client key, the customer key and where to come back;
 * the customer types a card and is sent to `successUrl` with `authKey` and `customerKey`, or to
 * `failUrl` with `code` and `message` when they cancel. A bad client key or return address gets an
 * error page and no redirect. `fields`: the query of a GET, the form of a POST.
 */
export function cardWidgetPage(
  method: 'GET' | 'POST',
  action: string,
  fields: URLSearchParams,
  context: CardWidgetContext,
): CardWidgetAnswer {
  const request = widgetRequest(fields, context);
  if (typeof request === 'string') return { status: 400, html: errorPage(request) };
  if (method === 'GET') return { status: 200, html: formPage(action, request, {}) };
  if (fields.get('cancel') !== null) {
    return back(request.failUrl, {
      code: CANCEL_CODE,
      message: 'The customer canceled the card registration.',
    });
  }
  const cardNumber = (fields.get('card_number') ?? '').replace(/[\s-]/g, '');
  const expiry = (fields.get('expiry') ?? '').trim();
  const errors: FieldErrors = {};
  if (!/^\d{16}$/.test(cardNumber)) errors.card_number = 'Enter the 16 digits of the card number.';
  const expiryError = checkExpiry(expiry, new Date());
  if (expiryError) errors.expiry = expiryError;
  if (Object.keys(errors).length > 0) {
    return { status: 400, html: formPage(action, request, errors, { cardNumber, expiry }) };
  }
  const authKey = context.authorizeCard({
    customerKey: request.customerKey,
    cardNumber,
    issueRejection: cardNumber === TEST_CARDS.declined ? { code: DECLINE_CODE } : undefined,
    firstChargeDelayMs: cardNumber === TEST_CARDS.slow ? context.slowChargeDelayMs : undefined,
    firstChargeMishap:
      cardNumber === TEST_CARDS.temporaryFailure
        ? 'temporaryFailure'
        : cardNumber === TEST_CARDS.lostAnswer
          ? 'lostAnswer'
          : undefined,
  });
  return back(request.successUrl, { authKey, customerKey: request.customerKey });
}

function widgetRequest(fields: URLSearchParams, context: CardWidgetContext): WidgetRequest | string {
  const clientKey = fields.get('clientKey') ?? '';
  if (clientKey !== context.clientKey) return 'The client key is not one of this provider’s merchants.';
  const customerKey = fields.get('customerKey') ?? '';
  if (!/^[A-Za-z0-9_=.@-]{2,300}$/.test(customerKey)) return 'The customer key is missing or malformed.';
  const successUrl = httpUrl(fields.get('successUrl'));
  const failUrl = httpUrl(fields.get('failUrl'));
  if (!successUrl || !failUrl) return 'successUrl and failUrl must be http(s) addresses.';
  return { clientKey, customerKey, successUrl, failUrl };
}

function httpUrl(value: string | null): URL | null {
  if (!value) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}

/** MM/YY, this month or later. */
function checkExpiry(expiry: string, now: Date): string | null {
  const match = /^(\d{2})\s*\/\s*(\d{2})$/.exec(expiry);
  const month = match ? Number(match[1]) : 0;
  if (!match || month < 1 || month > 12) return 'Enter the expiry date as MM/YY.';
  const year = 2000 + Number(match[2]);
  const thisMonth = now.getUTCFullYear() * 12 + now.getUTCMonth();
  if (year * 12 + (month - 1) < thisMonth) return 'The card has expired.';
  return null;
}

/**
 * The return address with the provider's answer added as query parameters, as the provider
 * documents its redirect ("the result is passed as query parameters of successUrl / failUrl":
 * `authKey` and `customerKey`, or `code` and `message`). Its pages show only addresses without a
 * query of their own; what it does with one is not documented. The stricter reading, kept here: the
 * merchant's own parameters (the checkout's id) stay as they were, in their order, and the answer
 * is appended after them, never replacing one of the same name, so a page must not trust a
 * parameter just because the provider could have set it. The fragment is dropped.
 */
function back(target: URL, answer: Record<string, string>): CardWidgetAnswer {
  const location = new URL(target);
  location.hash = '';
  for (const [name, value] of Object.entries(answer)) location.searchParams.append(name, value);
  return { status: 303, location: location.toString() };
}

type FieldErrors = Partial<Record<'card_number' | 'expiry', string>>;

const STYLE = `
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0; background: #f4f5f7; color: #1b1d21; }
  main { max-width: 26rem; margin: 2rem auto; padding: 1.5rem; background: #fff; border-radius: 8px; }
  h1 { font-size: 1.4rem; margin-top: 0; }
  label { display: block; font-weight: 600; margin-top: 1rem; }
  input { font: inherit; width: 100%; box-sizing: border-box; padding: .5rem; border: 1px solid #5f6672; border-radius: 4px; }
  .error { color: #a3161a; margin: .25rem 0 0; }
  .buttons { display: flex; gap: .75rem; margin-top: 1.5rem; }
  button { font: inherit; padding: .5rem 1rem; border-radius: 4px; border: 1px solid #1f4fbf; cursor: pointer; }
  .primary { background: #1f4fbf; color: #fff; }
  .secondary { background: #fff; color: #1f4fbf; }
  code { font-size: .95em; }
  .muted { color: #4b515c; font-size: .9rem; }
`;

function formPage(
  action: string,
  request: WidgetRequest,
  errors: FieldErrors,
  values: { cardNumber?: string; expiry?: string } = {},
): string {
  const hidden = (name: string, value: string) =>
    `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;
  const field = (
    name: 'card_number' | 'expiry',
    label: string,
    attributes: string,
    value: string | undefined,
  ) => {
    const error = errors[name];
    return `<label for="${name}">${label}</label>
      <input id="${name}" name="${name}" ${attributes} value="${escapeHtml(value ?? '')}"${
        error ? ` aria-invalid="true" aria-describedby="${name}-error"` : ''
      }>
      ${error ? `<p class="error" id="${name}-error">${escapeHtml(error)}</p>` : ''}`;
  };
  return page(
    'Register a card',
    `<h1>Register a card</h1>
    <p class="muted">Sandbox payment provider: no real card is charged.</p>
    <form method="post" action="${escapeHtml(action)}">
      ${hidden('clientKey', request.clientKey)}
      ${hidden('customerKey', request.customerKey)}
      ${hidden('successUrl', request.successUrl.toString())}
      ${hidden('failUrl', request.failUrl.toString())}
      ${field('card_number', 'Card number', 'inputmode="numeric" autocomplete="cc-number" required', values.cardNumber)}
      ${field('expiry', 'Expiry date (MM/YY)', 'autocomplete="cc-exp" placeholder="MM/YY" required', values.expiry)}
      <div class="buttons">
        <button class="primary" type="submit">Register the card</button>
        <button class="secondary" type="submit" name="cancel" value="1" formnovalidate>Cancel</button>
      </div>
    </form>
    <h2>Test cards</h2>
    <ul>
      <li><code>${spaced(TEST_CARDS.success)}</code>: registered and charged (any other number works too)</li>
      <li><code>${spaced(TEST_CARDS.declined)}</code>: refused by the card company</li>
      <li><code>${spaced(TEST_CARDS.slow)}</code>: the first payment is answered late (after the time-out)</li>
      <li><code>${spaced(TEST_CARDS.temporaryFailure)}</code>: the first payment fails for a moment (PROVIDER_ERROR, nothing charged)</li>
      <li><code>${spaced(TEST_CARDS.lostAnswer)}</code>: the first payment is charged but answered PROVIDER_ERROR</li>
    </ul>
    <p class="muted">Any expiry date from this month on.</p>`,
  );
}

function errorPage(message: string): string {
  return page(
    'Card registration unavailable',
    `<h1>Card registration unavailable</h1><p>${escapeHtml(message)}</p>`,
  );
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${escapeHtml(title)} · Sandbox payments</title>
  <style>${STYLE}</style>
</head>
<body><main>${body}</main></body>
</html>`;
}

const spaced = (digits: string) => digits.replace(/(\d{4})(?=\d)/g, '$1 ');

function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (character) =>
      ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[character] ?? character,
  );
}
