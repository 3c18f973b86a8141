import { DECLINE_CODES, readChargeError } from './charge-outcome';

describe(readChargeError.name, () => {
  it.each([
    [403, 'REJECT_CARD_PAYMENT'],
    [403, 'REJECT_CARD_COMPANY'],
    [400, 'INVALID_CARD_EXPIRATION'],
    [400, 'INVALID_STOPPED_CARD'],
    [400, 'EXCEED_MAX_DAILY_PAYMENT_COUNT'],
    [400, 'NOT_SUPPORTED_CARD_TYPE'],
    [404, 'NOT_FOUND_BILLING'],
  ])('reads %i %s as a decline', (status, code) => {
    expect(readChargeError(status, code)).toBe('declined');
  });

  it.each([
    [400, 'PROVIDER_ERROR', 'temporary'],
    [403, 'FORBIDDEN_CONSECUTIVE_REQUEST', 'try again later'],
    [400, 'INVALID_API_KEY', 'our configuration'],
    [401, 'UNAUTHORIZED_KEY', 'our configuration'],
    [400, 'DUPLICATED_ORDER_ID', 'may already be approved'],
    [400, 'ALREADY_PROCESSED_PAYMENT', 'may already be approved'],
    [400, 'NOT_MATCHES_CUSTOMER_KEY', 'our data, not the card'],
    [409, 'IDEMPOTENT_REQUEST_PROCESSING', 'still being processed'],
    [400, 'INVALID_REQUEST', 'our request'],
    [400, 'SOMETHING_NEW', 'a code we do not know'],
    [400, 'HTTP_400', 'no code at all'],
  ])('reads %i %s as unknown (%s)', (status, code) => {
    expect(readChargeError(status, code)).toBe('unknown');
  });

  it('never reads a 5xx as a decline, whatever its code', () => {
    for (const code of DECLINE_CODES) expect(readChargeError(500, code)).toBe('unknown');
  });

  it('lists only upper-case Toss codes', () => {
    for (const code of DECLINE_CODES) expect(code).toMatch(/^[A-Z_]+$/);
  });
});
