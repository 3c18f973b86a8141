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
