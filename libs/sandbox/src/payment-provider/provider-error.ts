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

/**
 * A temporary failure (PROVIDER_ERROR, FORBIDDEN_CONSECUTIVE_REQUEST): nothing was done, and the
 * answer is not remembered under the request's Idempotency-Key, so the same request sent again is
 * processed afresh. Toss's docs say a repeated key gets the first request's result; whether a
 * temporary failure counts as one is not documented. The product's safety does not depend on it
 * (a re-send under the same key never charges twice either way): only how soon a pending charge
 * settles does.
 */
export class TemporaryProviderError extends ProviderHttpError {}

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
  /** Toss documents the code, not its status for this route; 404 as for its other unknown resources. */
  notFoundBilling: error(404, 'NOT_FOUND_BILLING', 'The billing key does not exist.'),
  notMatchesCustomerKey: error(
    400,
    'NOT_MATCHES_CUSTOMER_KEY',
    'The customerKey does not match the one the billing key was issued for.',
  ),
  invalidIdempotencyKey: error(
    400,
    'INVALID_IDEMPOTENCY_KEY',
    'The Idempotency-Key must be 1 to 300 characters.',
  ),
  duplicatedOrderId: error(400, 'DUPLICATED_ORDER_ID', 'This orderId was already approved or canceled.'),
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
