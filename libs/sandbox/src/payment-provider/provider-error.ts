/** The provider's error body: `{ code, message }`, with the HTTP status carrying the class of failure. */
export interface ProviderErrorBody {
  code: string;
  message: string;
}

/** An answer in the provider's error format; thrown by the route logic, rendered by the server. */
export class ProviderHttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }

  body(): ProviderErrorBody {
    return { code: this.code, message: this.message };
  }
}

const error = (status: number, code: string, message: string) => () =>
  new ProviderHttpError(status, code, message);

/** The provider's error codes this fake answers with (besides declines configured by a test). */
export const providerError = {
  unauthorized: error(401, 'UNAUTHORIZED_KEY', 'The secret key is missing or not valid.'),
  notFound: error(404, 'NOT_FOUND', 'No such API.'),
  invalidRequest: (message: string) => new ProviderHttpError(400, 'INVALID_REQUEST', message),
  bodyTooLarge: error(413, 'INVALID_REQUEST', 'The request body is larger than 64 KiB.'),
  invalidAuthKey: error(400, 'INVALID_AUTH_KEY', 'The authKey is unknown or already used.'),
  expiredAuthKey: error(400, 'EXPIRED_AUTH_KEY', 'The authKey has expired.'),
  notFoundBillingKey: error(404, 'NOT_FOUND_BILLING_KEY', 'The billing key does not exist.'),
  duplicatedOrderId: error(400, 'DUPLICATED_ORDER_ID', 'An order with this orderId was already approved.'),
  /** Toss's look-ups, for an unknown paymentKey or orderId (docs.tosspayments.com/reference/error-codes). */
  notFoundPayment: error(404, 'NOT_FOUND_PAYMENT', 'The payment does not exist.'),
  idempotentRequestProcessing: error(
    409,
    'IDEMPOTENT_REQUEST_PROCESSING',
    'A request with this Idempotency-Key is still being processed.',
  ),
  outage: (status: number) =>
    new ProviderHttpError(status, 'PROVIDER_ERROR', 'The provider failed to process the request (injected).'),
  /** A bug in the fake, not a simulated failure: the code says so, unlike an injected outage. */
  internal: error(500, 'FAILED_INTERNAL_SYSTEM_PROCESSING', 'The fake payment provider failed; see stderr.'),
};
