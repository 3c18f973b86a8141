import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import { LoopbackServer } from '../loopback-server';
import type {
  ProviderEventData,
  ProviderEventType,
  ProviderWebhookBody,
  ProviderWebhookVerification,
  TossWebhookBody,
} from '@lib/contracts';
import { BoundedLog } from '../chat-platform/bounded-log';
import { assertCardNumber, cardCodes, maskCardNumber } from './card-details';
import { CARD_WIDGET_PATH, cardWidgetPage } from './card-widget-page';
import {
  type ChargeFailureRule,
  ChargeMishaps,
  ChargeRejections,
  type ChargeRejectionRule,
  type LostAnswerRule,
} from './charge-rejections';
import { declineMessage } from './decline-messages';
import { wholeSeconds } from './kst-time';
import { OutageInjector, type ProviderOutage } from './outage-injector';
import { type ProviderPayment, RECEIPT_PATH, canceledPayment, receiptPage } from './payment-object';
import type {
  BillingKeyRecord,
  ChargeRecord,
  PaymentRequestRecord,
  StoredCharge,
  WebhookDelivery,
} from './provider-state';
import { ProviderStore } from './provider-store';
import { randomId } from './random-id';
import { readBody } from './request-body';
import { handleProviderRequest } from './request-handler';
import { SDK_SCRIPT_PATH, sdkScript } from './sdk-script';
import {
  WebhookDispatcher,
  type WebhookResponse,
  postSignedWebhook,
  postWebhook,
} from './webhook-dispatcher';
import { eventData, webhookEvent } from './webhook-events';
import { type SignatureOptions, signWebhookBody } from './webhook-signature';
import { billingDeleted, paymentStatusChanged, resendDelaysMs } from './webhook-toss';

/** What `exportState` gives: dates as ISO strings. */
export interface FakeProviderState {
  billingKeys: (Omit<BillingKeyRecord, 'issuedAt' | 'deletedAt'> & {
    issuedAt: string;
    deletedAt: string | null;
  })[];
  charges: (Omit<StoredCharge, 'approvedAt' | 'cancellation'> & {
    approvedAt: string | null;
    cancellation: { canceledAt: string; reason: string } | null;
  })[];
}

export interface FakePaymentProviderOptions {
  /** Expected as `Authorization: Basic base64(secretKey + ':')`; default `test_sk_fake`. */
  secretKey?: string;
  /** Default `test_ck_fake`: the card page (reached through the fake's SDK script) accepts only this one. */
  clientKey?: string;
  /** Signs webhooks; default `test-webhook-secret`. */
  webhookSecret?: string;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: any free port. */
  port?: number;
  /** How many requests and webhook deliveries the logs keep; default 10,000 each. */
  logCapacity?: number;
  /** When set, the fake sends its own webhooks here after each state change (see `setWebhookUrl`). */
  webhookUrl?: string;
  /**
   * Which webhooks the fake sends on its own, matching the intake's PROVIDER_WEBHOOK_VERIFICATION:
   * `lookup`, Toss's (unsigned `{eventType, createdAt, data}`, resent on Toss's schedule);
   * `signature` (the default), the spec's signed envelope, sent once.
   */
  webhookStyle?: ProviderWebhookVerification;
  /**
   * Toss's resend intervals (1 to 4096 minutes) multiplied by this; default 1, real time. A test
   * compresses them, e.g. 1/60_000 makes each minute a millisecond.
   */
  webhookRetryTimeScale?: number;
  /**
   * How long the card page's slow test card holds its first charge (answer and webhook): longer
   * than the merchant's time-out. Default 35 s (billing's is 30 s).
   */
  slowCardDelayMs?: number;
}

export interface AuthorizeCardOptions {
  customerKey: string;
  /** 16 digits; default `4330123412341234`. */
  cardNumber?: string;
  /** The provider's short company name; default `신한`. */
  cardCompany?: string;
  /**
   * Makes the billing-key issue with this authKey fail with this code (and use the authKey up),
   * answered with `status`: default 400; the provider answers some card refusals with 403.
   */
  issueRejection?: { code: string; message?: string; status?: 400 | 403 };
  /**
   * The first charge on the billing key this card becomes is decided at once but answered, and
   * announced by webhook, only this long after: a provider slower than the merchant's time-out.
   */
  firstChargeDelayMs?: number;
  /**
   * What befalls the first charge on the billing key this card becomes: `temporaryFailure`, no
   * charge and a 400 PROVIDER_ERROR; `lostAnswer`, charged but answered 400 PROVIDER_ERROR.
   */
  firstChargeMishap?: 'temporaryFailure' | 'lostAnswer';
}

export type SendWebhookOptions = SignatureOptions & {
  /** Sent instead of the computed signature, e.g. a forged one. */
  signature?: string;
};

/**
 * A loopback server speaking the payment provider's billing-key API (issue a billing key, charge
 * it, look a payment up by order id) with Basic secret-key auth, idempotency keys, declines,
 * outages and a slow mode; it also plays the provider's side of webhooks. Everything else is an
 * in-process control API for tests and the sandbox.
 */
export class FakePaymentProvider {
  readonly secretKey: string;
  readonly clientKey: string;
  readonly webhookSecret: string;
  private readonly loopback: LoopbackServer;
  private readonly initialWebhookUrl: string | null;
  private readonly store = new ProviderStore();
  private readonly outages = new OutageInjector();
  private readonly rejections = new ChargeRejections();
  private readonly mishaps = new ChargeMishaps();
  private readonly requests: BoundedLog<PaymentRequestRecord>;
  private readonly webhooks: WebhookDispatcher;
  private chargeDelayMs = 0;
  private slowCardDelayMs: number;
  private webhookUrl: string | null;
  private readonly webhookStyle: ProviderWebhookVerification;
  private readonly initialRetryTimeScale: number;
  private webhookRetryTimeScale: number;

  constructor(options: FakePaymentProviderOptions = {}) {
    this.secretKey = options.secretKey ?? 'test_sk_fake';
    this.clientKey = options.clientKey ?? 'test_ck_fake';
    this.webhookSecret = options.webhookSecret ?? 'test-webhook-secret';
    this.loopback = new LoopbackServer(
      'fake payment provider',
      options.host ?? '127.0.0.1',
      options.port ?? 0,
    );
    const logCapacity = options.logCapacity ?? 10_000;
    this.requests = new BoundedLog(logCapacity);
    this.webhooks = new WebhookDispatcher(this.webhookSecret, logCapacity);
    this.initialWebhookUrl = options.webhookUrl ?? null;
    this.webhookUrl = this.initialWebhookUrl;
    this.slowCardDelayMs = options.slowCardDelayMs ?? 35_000;
    this.webhookStyle = options.webhookStyle ?? 'signature';
    this.initialRetryTimeScale = options.webhookRetryTimeScale ?? 1;
    resendDelaysMs(this.initialRetryTimeScale);
    this.webhookRetryTimeScale = this.initialRetryTimeScale;
  }

  /** The base address without `/v1`, e.g. `http://127.0.0.1:1234`. */
  get url(): string {
    return this.loopback.url;
  }

  async start(): Promise<{ url: string }> {
    const url = await this.loopback.start((stopping) => {
      const context = {
        secretKey: this.secretKey,
        store: this.store,
        outages: this.outages,
        rejections: this.rejections,
        mishaps: this.mishaps,
        requests: this.requests,
        chargeDelayMs: () => this.chargeDelayMs,
        onCharge: (charge: StoredCharge) => this.announceCharge(charge),
        receiptBaseUrl: () => `${this.url}${RECEIPT_PATH}`,
        stopping,
      };
      return createServer((req, res) => {
        const pathname = (req.url ?? '/').split('?')[0];
        if (pathname === CARD_WIDGET_PATH) return void this.serveCardWidget(req, res);
        if (pathname === SDK_SCRIPT_PATH) return this.serveSdkScript(req, res);
        if (pathname.startsWith(`${RECEIPT_PATH}/`)) return this.serveReceipt(req, res, pathname);
        return void handleProviderRequest(req, res, context);
      });
    });
    return { url };
  }

  /**
   * Closes the server and its keep-alive connections; answers held by the charge delay are dropped
   * (the charges stay) and webhooks in flight are cut short. State survives until `reset()`.
   */
  async stop(): Promise<void> {
    this.webhooks.abortInFlight();
    await this.loopback.stop();
  }

  /**
   * Back to a fresh provider: no cards, keys, charges, logs, rules, delay; the configured webhook URL
   * and retry time scale. Toss deliveries waiting to be resent are dropped.
   */
  reset(): void {
    this.store.clear();
    this.outages.clear();
    this.rejections.clear();
    this.mishaps.clear();
    this.requests.clear();
    this.webhooks.reset();
    this.chargeDelayMs = 0;
    this.webhookUrl = this.initialWebhookUrl;
    this.webhookRetryTimeScale = this.initialRetryTimeScale;
  }

  /** Issued billing keys and decided charges, as JSON, for the sandbox to keep across restarts. */
  exportState(): FakeProviderState {
    return JSON.parse(
      JSON.stringify({ billingKeys: [...this.store.billingKeys.values()], charges: this.store.charges }),
    ) as FakeProviderState;
  }

  /** Puts back what `exportState` took (dates come back as Date). */
  importState(state: FakeProviderState): void {
    for (const record of state.billingKeys) {
      this.store.billingKeys.set(record.billingKey, {
        ...record,
        issuedAt: new Date(record.issuedAt),
        deletedAt: record.deletedAt === null ? null : new Date(record.deletedAt),
      });
    }
    for (const charge of state.charges) {
      this.store.recordCharge({
        ...charge,
        approvedAt: charge.approvedAt === null ? null : new Date(charge.approvedAt),
        cancellation: charge.cancellation && {
          ...charge.cancellation,
          canceledAt: new Date(charge.cancellation.canceledAt),
        },
      });
    }
  }

  // --- cards and billing keys ---

  /** The customer authenticates a card in the provider's widget; returns the single-use authKey. */
  authorizeCard(options: AuthorizeCardOptions): string {
    const cardNumber = options.cardNumber ?? '4330123412341234';
    const cardCompany = options.cardCompany ?? '신한';
    assertCardNumber(cardNumber);
    cardCodes(cardCompany); // fail here, at the typo, rather than at issue time
    const authKey = randomId('auth_');
    const rejection = options.issueRejection;
    this.store.authKeys.set(authKey, {
      authKey,
      customerKey: options.customerKey,
      cardNumber: maskCardNumber(cardNumber),
      cardCompany,
      issueRejection: rejection
        ? {
            code: rejection.code,
            message: declineMessage(rejection.code, rejection.message),
            status: rejection.status ?? 400,
          }
        : null,
      expired: false,
      used: false,
      firstChargeDelayMs: options.firstChargeDelayMs ?? null,
      ...(options.firstChargeMishap ? { firstChargeMishap: options.firstChargeMishap } : {}),
    });
    return authKey;
  }

  /** How long the card page's slow test card holds its first charge from now on. */
  setSlowCardDelay(ms: number): void {
    if (!(ms >= 0) || !Number.isFinite(ms)) throw new Error(`setSlowCardDelay: ms must be >= 0, got ${ms}`);
    this.slowCardDelayMs = ms;
  }

  /**
   * The provider's card page (card-widget-page.ts) for one request, GET or POST, wherever it is
   * mounted: on the fake's own port at `/card-widget`, or under the sandbox's public routes.
   */
  async serveCardWidget(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const [action, query = ''] = (req.url ?? '/').split('?');
    const method = req.method === 'POST' ? 'POST' : req.method === 'GET' ? 'GET' : null;
    if (method === null) {
      res.writeHead(405, { Allow: 'GET, POST', 'Content-Type': 'text/plain' }).end('Method Not Allowed');
      return;
    }
    const fields =
      method === 'POST'
        ? new URLSearchParams((await readBody(req)).toString('utf8'))
        : new URLSearchParams(query);
    const answer = cardWidgetPage(method, action, fields, {
      clientKey: this.clientKey,
      slowChargeDelayMs: this.slowCardDelayMs,
      authorizeCard: (options) => this.authorizeCard(options),
    });
    if (answer.status === 303) {
      res.writeHead(303, { Location: answer.location }).end();
      return;
    }
    res
      .writeHead(answer.status, {
        'Content-Type': 'text/html; charset=utf-8',
        'Cache-Control': 'no-store',
        'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action *",
      })
      .end(answer.html);
  }

  /**
   * The provider's JS SDK as the sandbox plays it (sdk-script.ts), wherever it is mounted: at
   * `/v2/standard` on the fake's own port, or under the sandbox's public routes; it sends the
   * browser to the card page mounted beside it (`<mount>/card-widget`).
   */
  serveSdkScript(req: IncomingMessage, res: ServerResponse): void {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain' }).end('Method Not Allowed');
      return;
    }
    const pathname = (req.url ?? '/').split('?')[0];
    const mount = pathname.endsWith(SDK_SCRIPT_PATH) ? pathname.slice(0, -SDK_SCRIPT_PATH.length) : '';
    const script = sdkScript(`${mount}${CARD_WIDGET_PATH}`);
    res.writeHead(200, {
      'Content-Type': 'text/javascript; charset=utf-8',
      'Content-Length': Buffer.byteLength(script),
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    });
    res.end(req.method === 'HEAD' ? undefined : script);
  }

  expireAuthKey(authKey: string): void {
    const pending = this.store.authKeys.get(authKey);
    if (!pending) throw new Error(`the fake payment provider has no authKey ${authKey}`);
    pending.expired = true;
  }

  /** The customer or the provider removes the key: charges with it answer 404 from now on. */
  deleteBillingKey(billingKey: string): void {
    const record = this.liveBillingKey(billingKey);
    if (record.deletedAt) throw new Error(`billing key ${billingKey} is already deleted`);
    record.deletedAt = wholeSeconds(new Date());
    this.announce(
      () => webhookEvent('BILLING_KEY.DELETED', eventData.billingKeyDeleted(record)),
      () => billingDeleted(billingKey, null),
    );
  }

  billingKeys(): BillingKeyRecord[] {
    return [...this.store.billingKeys.values()].map((record) => ({
      ...record,
      issuedAt: new Date(record.issuedAt),
      deletedAt: record.deletedAt && new Date(record.deletedAt),
    }));
  }

  // --- charges ---

  /** Declines matching charges with this code; rules are tried in the order added. */
  rejectCharges(rule: ChargeRejectionRule): void {
    this.rejections.add(rule);
  }

  clearChargeRejections(): void {
    this.rejections.clear();
  }

  /**
   * Matching charges are not made: the provider answers a temporary failure (PROVIDER_ERROR 400,
   * FORBIDDEN_CONSECUTIVE_REQUEST 403), not remembered under the Idempotency-Key.
   */
  failCharges(rule: ChargeFailureRule): void {
    this.mishaps.addFailure(rule);
  }

  /**
   * Matching charges are made (recorded, announced, remembered under their Idempotency-Key) but
   * the request is answered with `answer` (default PROVIDER_ERROR): the merchant never hears of
   * the payment but through a look-up, a webhook or a replay of the key.
   */
  loseChargeAnswers(rule: LostAnswerRule = {}): void {
    this.mishaps.addLostAnswer(rule);
  }

  /** Forgets every failCharges and loseChargeAnswers rule. */
  clearChargeMishaps(): void {
    this.mishaps.clear();
  }

  /** Slow mode: charges are decided at once but answered `ms` later; 0 turns it off. */
  setChargeDelay(ms: number): void {
    if (!(ms >= 0) || !Number.isFinite(ms)) throw new Error(`setChargeDelay: ms must be >= 0, got ${ms}`);
    this.chargeDelayMs = ms;
  }

  /** The next `times` requests to the route answer `PROVIDER_ERROR` with `status`, doing nothing. */
  failNext(outage: ProviderOutage): void {
    this.outages.add(outage);
  }

  /** Every decided charge, approved or declined, in order (not replays, not injected outages). */
  charges(): ChargeRecord[] {
    return this.store.charges.map(publicCharge);
  }

  /** Charges that moved money: `DONE`, or `CANCELED` since. */
  approvedCharges(): ChargeRecord[] {
    return this.charges().filter((charge) => charge.status !== 'ABORTED');
  }

  /** The provider refunds an approved payment (an operator action at the provider). */
  cancelPayment(paymentKey: string, reason: string): void {
    const charge = this.store.approvedByPaymentKey.get(paymentKey);
    if (!charge?.payment) throw new Error(`the fake payment provider has no payment ${paymentKey}`);
    if (charge.cancellation) throw new Error(`payment ${paymentKey} is already canceled`);
    charge.status = 'CANCELED';
    charge.cancellation = { canceledAt: wholeSeconds(new Date()), reason };
    const canceled = canceledPayment(charge.payment, charge.cancellation.canceledAt, reason);
    charge.payment = canceled;
    this.announce(
      () => webhookEvent('PAYMENT.CANCELED', eventData.paymentCanceled(charge)),
      () => paymentStatusChanged(canceled),
    );
  }

  /** The Payment object `GET /v1/payments/{paymentKey}` answers now, or null (its 404). */
  payment(paymentKey: string): ProviderPayment | null {
    return copyOf(this.store.paymentsByPaymentKey.get(paymentKey)?.payment ?? null);
  }

  /** The Payment object `GET /v1/payments/orders/{orderId}` answers now, or null (its 404). */
  paymentByOrderId(orderId: string): ProviderPayment | null {
    return copyOf(this.store.paymentsByOrderId.get(orderId)?.payment ?? null);
  }

  /** A payment's receipt page, at the address its `receipt.url` gives; no auth, as the provider's. */
  private serveReceipt(req: IncomingMessage, res: ServerResponse, pathname: string): void {
    const prefix = `${RECEIPT_PATH}/payments/`;
    // Payment keys are [A-Za-z0-9_-]: anything else, encoded or not, is simply not found.
    const paymentKey = pathname.startsWith(prefix) ? pathname.slice(prefix.length) : '';
    const payment = this.store.paymentsByPaymentKey.get(paymentKey)?.payment;
    if (req.method !== 'GET' || !payment?.receipt) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not Found');
      return;
    }
    res
      .writeHead(200, {
        'Content-Type': 'text/html; charset=utf-8',
        'Cache-Control': 'no-store',
        'Content-Security-Policy': "default-src 'none'",
      })
      .end(receiptPage(payment));
  }

  requestLog(): PaymentRequestRecord[] {
    return this.requests.entries().map((record) => ({ ...record, at: new Date(record.at) }));
  }

  // --- webhooks (the provider calling the application) ---

  webhookEvent<T extends ProviderEventType>(type: T, data: ProviderEventData[T]): ProviderWebhookBody<T> {
    return webhookEvent(type, data);
  }

  /** PAYMENT.DONE for the approved charge of this order. */
  paymentDoneEvent(orderId: string): ProviderWebhookBody<'PAYMENT.DONE'> {
    const charge = this.store.approvedByOrderId.get(orderId);
    if (!charge) throw new Error(`the fake payment provider approved no order ${orderId}`);
    return webhookEvent('PAYMENT.DONE', eventData.paymentDone(charge));
  }

  /** PAYMENT.FAILED for the latest declined charge of this order. */
  paymentFailedEvent(orderId: string): ProviderWebhookBody<'PAYMENT.FAILED'> {
    const charge = this.store.charges.findLast(
      (candidate) => candidate.orderId === orderId && candidate.status === 'ABORTED',
    );
    if (!charge) throw new Error(`the fake payment provider declined no order ${orderId}`);
    return webhookEvent('PAYMENT.FAILED', eventData.paymentFailed(charge));
  }

  /** PAYMENT.CANCELED for a payment canceled with `cancelPayment()`. */
  paymentCanceledEvent(paymentKey: string): ProviderWebhookBody<'PAYMENT.CANCELED'> {
    const charge = this.store.approvedByPaymentKey.get(paymentKey);
    if (!charge) throw new Error(`the fake payment provider has no payment ${paymentKey}`);
    return webhookEvent('PAYMENT.CANCELED', eventData.paymentCanceled(charge));
  }

  /** BILLING_KEY.DELETED for a key removed with `deleteBillingKey()`. */
  billingKeyDeletedEvent(billingKey: string): ProviderWebhookBody<'BILLING_KEY.DELETED'> {
    return webhookEvent('BILLING_KEY.DELETED', eventData.billingKeyDeleted(this.liveBillingKey(billingKey)));
  }

  /** HMAC-SHA256 of the raw body bytes with the webhook secret; hex without prefix by default. */
  signature(rawBody: string | Buffer, options: SignatureOptions = {}): string {
    return signWebhookBody(rawBody, this.webhookSecret, options);
  }

  /** POSTs `JSON.stringify(body)`, signed in the `Provider-Signature` header. */
  sendWebhook(
    url: string,
    body: ProviderWebhookBody,
    options: SendWebhookOptions = {},
  ): Promise<WebhookResponse> {
    return postSignedWebhook(url, body, this.webhookSecret, options);
  }

  /** POSTs the bytes as given with exactly these headers (no signature added): for malformed bodies. */
  sendRawWebhook(
    url: string,
    rawBody: string | Buffer,
    headers: Record<string, string>,
  ): Promise<WebhookResponse> {
    return postWebhook(url, rawBody, headers);
  }

  /**
   * Where the fake sends its own webhooks. The spec's (`signature` style): PAYMENT.DONE /
   * PAYMENT.FAILED after each decided charge, BILLING_KEY.DELETED after `deleteBillingKey()`,
   * PAYMENT.CANCELED after `cancelPayment()`. Toss's (`lookup` style): PAYMENT_STATUS_CHANGED after
   * `cancelPayment()` and BILLING_DELETED after `deleteBillingKey()`, and nothing for a billing
   * charge, which Toss does not announce ("자동결제는 ... 결제가 완료됐을 때 웹훅을 전송하지
   * 않습니다"; a decline is not said either way, so the fake keeps quiet on it too). Null: none.
   */
  setWebhookUrl(url: string | null): void {
    this.webhookUrl = url;
  }

  /** The fake's own webhook sends that finished, with the receiver's status or the error. */
  webhookDeliveries(): WebhookDelivery[] {
    return this.webhooks.log();
  }

  /** Resolves once every webhook the fake sent on its own so far has been answered or has failed. */
  flushWebhooks(): Promise<void> {
    return this.webhooks.flush();
  }

  private announceCharge(charge: StoredCharge): void {
    this.announce(
      () =>
        charge.status === 'ABORTED'
          ? webhookEvent('PAYMENT.FAILED', eventData.paymentFailed(charge))
          : webhookEvent('PAYMENT.DONE', eventData.paymentDone(charge)),
      null,
    );
  }

  /** Builds the event of the fake's style only when there is somewhere to send it (and one to send). */
  private announce(signed: () => ProviderWebhookBody, toss: (() => TossWebhookBody) | null): void {
    if (this.webhookUrl === null) return;
    if (this.webhookStyle === 'signature') return this.webhooks.dispatch(this.webhookUrl, signed());
    if (toss) void this.webhooks.dispatchToss(this.webhookUrl, toss(), this.webhookRetryTimeScale);
  }

  // --- Toss's webhooks (the intake's `lookup` mode) ---

  /** PAYMENT_STATUS_CHANGED carrying the payment's Payment object as the look-ups answer it now. */
  tossPaymentEvent(paymentKey: string): TossWebhookBody {
    const payment = this.payment(paymentKey);
    if (!payment) throw new Error(`the fake payment provider has no payment ${paymentKey}`);
    return paymentStatusChanged(payment);
  }

  /** BILLING_DELETED for a key removed with `deleteBillingKey()`. */
  tossBillingDeletedEvent(billingKey: string, reason: string | null = null): TossWebhookBody {
    if (!this.liveBillingKey(billingKey).deletedAt) {
      throw new Error(`billing key ${billingKey} is not deleted; call deleteBillingKey() first`);
    }
    return billingDeleted(billingKey, reason);
  }

  /**
   * Sends a Toss delivery as Toss does: unsigned, resent on Toss's schedule (scaled by the retry
   * time scale) while it is not answered 200. Resolves with its transmissions, once one is answered
   * 200 or the seventh resend has failed; each is in `webhookDeliveries()` too.
   */
  deliverTossWebhook(url: string, body: TossWebhookBody): Promise<WebhookDelivery[]> {
    return this.webhooks.dispatchToss(url, body, this.webhookRetryTimeScale);
  }

  /** See the `webhookRetryTimeScale` option. */
  setWebhookRetryTimeScale(timeScale: number): void {
    resendDelaysMs(timeScale);
    this.webhookRetryTimeScale = timeScale;
  }

  private liveBillingKey(billingKey: string): BillingKeyRecord {
    const record = this.store.billingKeys.get(billingKey);
    if (!record) throw new Error(`the fake payment provider has no billing key ${billingKey}`);
    return record;
  }
}

function copyOf<T>(value: T): T {
  return value === null ? value : (JSON.parse(JSON.stringify(value)) as T);
}

/** A copy of a decided charge the caller may change, without what only the store keeps. */
function publicCharge({
  payment: _payment,
  cancellation: _cancellation,
  ...charge
}: StoredCharge): ChargeRecord {
  return {
    ...charge,
    failure: charge.failure && { ...charge.failure },
    approvedAt: charge.approvedAt && new Date(charge.approvedAt),
  };
}
