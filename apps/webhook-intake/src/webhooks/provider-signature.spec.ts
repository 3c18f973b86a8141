import { createHmac } from 'node:crypto';
import { verifyProviderSignature } from './provider-signature';

describe(verifyProviderSignature.name, () => {
  const secret = 'whsec-test-0123456789';
  const body = Buffer.from('{"eventId":"evt_1","eventType":"PAYMENT.DONE","data":{"amount":9900}}');
  const mac = createHmac('sha256', secret).update(body).digest();

  it.each([
    ['hex', mac.toString('hex')],
    ['upper-case hex', mac.toString('hex').toUpperCase()],
    ['base64', mac.toString('base64')],
    ['base64url', mac.toString('base64url')],
    ['sha256= prefixed hex', `sha256=${mac.toString('hex')}`],
    ['sha256= prefixed base64', `sha256=${mac.toString('base64')}`],
  ])('accepts the HMAC as %s', (_, header) => {
    expect(verifyProviderSignature(body, header, secret)).toBe(true);
  });

  it('refuses a signature over other bytes, even the same JSON re-serialised', () => {
    const reserialised = Buffer.from(JSON.stringify(JSON.parse(body.toString())), 'utf8');
    const spaced = Buffer.from(body.toString().replace(':', ': '));
    expect(reserialised.equals(body)).toBe(true);
    expect(verifyProviderSignature(spaced, mac.toString('hex'), secret)).toBe(false);
  });

  it('refuses another secret, a flipped byte, a truncated value and garbage', () => {
    const other = createHmac('sha256', 'another-secret-000').update(body).digest('hex');
    const flipped = Buffer.from(mac);
    flipped[31] ^= 1;
    for (const header of [
      other,
      flipped.toString('hex'),
      mac.toString('hex').slice(0, 63),
      'nonsense',
      '',
      'sha256=',
    ]) {
      expect(verifyProviderSignature(body, header, secret)).toBe(false);
    }
    expect(verifyProviderSignature(body, undefined, secret)).toBe(false);
  });
});
