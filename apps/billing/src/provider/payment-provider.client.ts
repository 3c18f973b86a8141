import axios, { type AxiosInstance, isAxiosError } from 'axios';

export interface PaymentProviderOptions {
  baseUrl: string;
  secretKey: string;
  timeoutMs: number;
}

export interface IssuedBillingKey {
  billingKey: string;
  cardCompany: string;
  /** Masked by the provider, e.g. `43301234****123*`. */
  cardNumber: string;
}

export interface ChargeRequest {
  customerKey: string;
  amount: number;
  orderId: string;
  orderName: string;
}

/**
 * What a charge call tells us. `unknown` means we cannot know whether the card was charged (no
 * answer in time, a 5xx, our own credentials refused): the attempt stays pending and is settled
 * by the provider's webhook or by re-sending the same order under the same Idempotency-Key.
 */
export type ChargeOutcome =
  | { kind: 'approved'; paymentKey: string; approvedAt: Date }
  | { kind: 'rejected'; status: number; code: string; message: string }
  | { kind: 'unknown'; reason: string };

/** A Payment object's status (docs.tosspayments.com Payment object reference). */
export type ProviderPaymentStatus =
  | 'READY'
  | 'IN_PROGRESS'
  | 'WAITING_FOR_DEPOSIT'
  | 'DONE'
  | 'CANCELED'
  | 'PARTIAL_CANCELED'
  | 'ABORTED'
  | 'EXPIRED';

const PAYMENT_STATUSES: ReadonlySet<string> = new Set<ProviderPaymentStatus>([
  'READY',
  'IN_PROGRESS',
  'WAITING_FOR_DEPOSIT',
  'DONE',
  'CANCELED',
  'PARTIAL_CANCELED',
  'ABORTED',
  'EXPIRED',
]);

/** What billing reads of the provider's Payment object (a look-up's answer, a charge's answer). */
export interface ProviderPayment {
  paymentKey: string;
  orderId: string;
  status: ProviderPaymentStatus;
  /** Null until approved (and for ABORTED / EXPIRED payments). */
  approvedAt: Date | null;
  lastTransactionKey: string | null;
  totalAmount: number;
  /** The provider's receipt page; null where it gives none (a payment never approved). */
  receiptUrl: string | null;
  /** Why an ABORTED / EXPIRED payment failed. */
  failure: { code: string; message: string } | null;
  /** When each cancellation happened, oldest first. */
  cancels: { canceledAt: Date }[];
}

/** The provider refused (4xx) with its error code; nothing was issued or charged. */
export class ProviderRejectedError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly providerMessage: string,
  ) {
    super(`provider refused with ${status} ${code}`);
    this.name = 'ProviderRejectedError';
  }
}

/** The provider did not answer usably; whether it acted is unknown. */
export class ProviderUnavailableError extends Error {
  constructor(readonly reason: string) {
    super(`provider unavailable: ${reason}`);
    this.name = 'ProviderUnavailableError';
  }
}

interface ProviderErrorBody {
  code?: unknown;
  message?: unknown;
}

/**
 * The provider's billing-key API (docs/behaviour.md §4.10a-4.12) over axios: Basic auth with the merchant
 * secret key, a 30 s timeout, and the order id as Idempotency-Key on charges.
 *
 * Nothing here logs or rethrows axios errors as they are: their config holds the Authorization
 * header and the URL holds the billing key. Callers get the status and the provider's code only.
 */
export class PaymentProviderClient {
  private readonly http: AxiosInstance;

  constructor(options: PaymentProviderOptions) {
    this.http = axios.create({
      baseURL: options.baseUrl,
      timeout: options.timeoutMs,
      auth: { username: options.secretKey, password: '' },
      headers: { 'content-type': 'application/json' },
      // Redirects would resend the credentials elsewhere.
      maxRedirects: 0,
    });
  }

  /** docs/behaviour.md §4.11: exchanges the widget's one-time auth key for a billing key. */
  async issueBillingKey(authKey: string, customerKey: string): Promise<IssuedBillingKey> {
    try {
      const { data } = await this.http.post<Partial<IssuedBillingKey>>('/v1/billing/authorizations/issue', {
        authKey,
        customerKey,
      });
      if (typeof data.billingKey !== 'string' || data.billingKey.length === 0) {
        throw new ProviderUnavailableError('issue answer without a billing key');
      }
      return {
        billingKey: data.billingKey,
        cardCompany: typeof data.cardCompany === 'string' ? data.cardCompany : '',
        cardNumber: typeof data.cardNumber === 'string' ? data.cardNumber : '',
      };
    } catch (error) {
      throw toProviderError(error);
    }
  }

  /**
   * `GET /v1/payments/{paymentKey}`: the payment as the provider holds it now; null when it knows
   * no such payment (NOT_FOUND_PAYMENT). Anything else unusable throws ProviderUnavailableError.
   */
  getPayment(paymentKey: string): Promise<ProviderPayment | null> {
    return this.lookUp(`/v1/payments/${encodeURIComponent(paymentKey)}`);
  }

  /** `GET /v1/payments/orders/{orderId}`: as getPayment, found by our order id. */
  getPaymentByOrderId(orderId: string): Promise<ProviderPayment | null> {
    return this.lookUp(`/v1/payments/orders/${encodeURIComponent(orderId)}`);
  }

  private async lookUp(path: string): Promise<ProviderPayment | null> {
    try {
      const { data } = await this.http.get<unknown>(path);
      return parseProviderPayment(data);
    } catch (error) {
      const failure = toProviderError(error);
      if (failure instanceof ProviderRejectedError && failure.code === 'NOT_FOUND_PAYMENT') return null;
      // A look-up changes nothing: whatever else it answered, we still do not know.
      throw failure instanceof ProviderUnavailableError
        ? failure
        : new ProviderUnavailableError(`look-up refused with ${failure.status} ${failure.code}`);
    }
  }

  /** docs/behaviour.md §4.12: charges the billing key once per order id, whatever the number of calls. */
  async charge(billingKey: string, request: ChargeRequest): Promise<ChargeOutcome> {
    try {
      const { data } = await this.http.post<{ paymentKey?: unknown; approvedAt?: unknown; status?: unknown }>(
        `/v1/billing/${encodeURIComponent(billingKey)}`,
        request,
        { headers: { 'Idempotency-Key': request.orderId } },
      );
      const approvedAt = typeof data.approvedAt === 'string' ? new Date(data.approvedAt) : undefined;
      if (typeof data.paymentKey !== 'string' || !approvedAt || Number.isNaN(approvedAt.getTime())) {
        return { kind: 'unknown', reason: 'charge answer without paymentKey or approvedAt' };
      }
      return { kind: 'approved', paymentKey: data.paymentKey, approvedAt };
    } catch (error) {
      const failure = toProviderError(error);
      // 401/403 on our key and 409 "still processing" say nothing about the card: keep it pending.
      if (failure instanceof ProviderRejectedError && isCardRejection(failure)) {
        return {
          kind: 'rejected',
          status: failure.status,
          code: failure.code,
          message: failure.providerMessage,
        };
      }
      return { kind: 'unknown', reason: failure.message };
    }
  }
}

const NOT_ABOUT_THE_CARD = new Set([
  'UNAUTHORIZED_KEY',
  'IDEMPOTENT_REQUEST_PROCESSING',
  'FORBIDDEN_REQUEST',
]);

function isCardRejection(error: ProviderRejectedError): boolean {
  return error.status !== 401 && error.status !== 409 && !NOT_ABOUT_THE_CARD.has(error.code);
}

function toProviderError(error: unknown): ProviderRejectedError | ProviderUnavailableError {
  if (error instanceof ProviderRejectedError || error instanceof ProviderUnavailableError) return error;
  if (!isAxiosError<ProviderErrorBody>(error)) return new ProviderUnavailableError('unexpected failure');
  const response = error.response;
  if (!response) {
    const timedOut = error.code === 'ECONNABORTED' || error.code === 'ETIMEDOUT';
    return new ProviderUnavailableError(
      timedOut ? 'no answer within the time-out' : `network (${error.code})`,
    );
  }
  if (response.status >= 400 && response.status < 500) {
    const body = response.data ?? {};
    return new ProviderRejectedError(
      response.status,
      typeof body.code === 'string' ? body.code.slice(0, 100) : `HTTP_${response.status}`,
      typeof body.message === 'string' ? body.message.slice(0, 500) : '',
    );
  }
  return new ProviderUnavailableError(`HTTP ${response.status}`);
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function text(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 ? value : null;
}

/** An ISO 8601 timestamp with its offset, as the provider writes them; null when absent. */
function timestamp(value: unknown, field: string): Date | null {
  if (value === null || value === undefined) return null;
  const date = typeof value === 'string' ? new Date(value) : undefined;
  if (!date || Number.isNaN(date.getTime()))
    throw new ProviderUnavailableError(`payment ${field} unreadable`);
  return date;
}

function failureOf(value: unknown): ProviderPayment['failure'] {
  if (!isRecord(value)) return null;
  return {
    code: (text(value.code) ?? 'UNKNOWN').slice(0, 100),
    message: (typeof value.message === 'string' ? value.message : '').slice(0, 500),
  };
}

function receiptUrlOf(value: unknown): string | null {
  if (!isRecord(value)) return null;
  const url = text(value.url);
  // Only a web address is ever shown to the payer as a link.
  return url && /^https?:\/\//i.test(url) && url.length <= 2000 ? url : null;
}

/**
 * The fields billing uses of a Payment object, checked: an answer without its key, order id, a
 * known status or a readable approval time of a DONE payment is not a payment we can act on.
 */
export function parseProviderPayment(data: unknown): ProviderPayment {
  if (!isRecord(data)) throw new ProviderUnavailableError('payment answer is not an object');
  const paymentKey = text(data.paymentKey);
  const orderId = text(data.orderId);
  const status = text(data.status);
  if (!paymentKey || !orderId)
    throw new ProviderUnavailableError('payment answer without paymentKey or orderId');
  if (!status || !PAYMENT_STATUSES.has(status)) {
    throw new ProviderUnavailableError(`payment answer with unknown status ${String(status).slice(0, 40)}`);
  }
  const approvedAt = timestamp(data.approvedAt, 'approvedAt');
  if (status === 'DONE' && !approvedAt) throw new ProviderUnavailableError('DONE payment without approvedAt');
  const totalAmount = data.totalAmount;
  if (typeof totalAmount !== 'number' || !Number.isSafeInteger(totalAmount) || totalAmount < 0) {
    throw new ProviderUnavailableError('payment answer without a whole totalAmount');
  }
  const cancels = Array.isArray(data.cancels) ? data.cancels : [];
  return {
    paymentKey,
    orderId,
    status: status as ProviderPaymentStatus,
    approvedAt,
    lastTransactionKey: text(data.lastTransactionKey),
    totalAmount,
    receiptUrl: receiptUrlOf(data.receipt),
    failure: failureOf(data.failure),
    cancels: cancels.map((cancel) => ({
      canceledAt:
        timestamp(isRecord(cancel) ? cancel.canceledAt : undefined, 'cancels.canceledAt') ??
        raise('payment cancel without canceledAt'),
    })),
  };
}

function raise(reason: string): never {
  throw new ProviderUnavailableError(reason);
}
