import { generateKeyPairSync, sign } from 'node:crypto';
import { INTERACTION_MAX_AGE_SECONDS, InteractionVerifier } from './interaction-signature';

describe('InteractionVerifier', () => {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const publicKeyHex = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url').toString('hex');
  const nowMs = 1_790_000_000_000;
  const timestamp = String(nowMs / 1000);
  const body = Buffer.from('{"type":1}');
  const signature = (ts: string, raw: Buffer) =>
    sign(null, Buffer.concat([Buffer.from(ts), raw]), privateKey).toString('hex');
  const verifier = new InteractionVerifier(publicKeyHex, () => nowMs);

  it('accepts the platform’s signature over timestamp and raw body', () => {
    expect(verifier.verify(signature(timestamp, body), timestamp, body)).toBe(true);
  });

  it('rejects a changed body, a changed timestamp and another key’s signature', () => {
    expect(verifier.verify(signature(timestamp, body), timestamp, Buffer.from('{"type":2}'))).toBe(false);
    expect(verifier.verify(signature(timestamp, body), String(nowMs / 1000 + 1), body)).toBe(false);
    const other = generateKeyPairSync('ed25519').privateKey;
    const foreign = sign(null, Buffer.concat([Buffer.from(timestamp), body]), other).toString('hex');
    expect(verifier.verify(foreign, timestamp, body)).toBe(false);
  });

  it('rejects missing or malformed headers without throwing', () => {
    expect(verifier.verify(undefined, timestamp, body)).toBe(false);
    expect(verifier.verify(signature(timestamp, body), undefined, body)).toBe(false);
    expect(verifier.verify('zz', timestamp, body)).toBe(false);
    expect(verifier.verify(signature('abc', body), 'abc', body)).toBe(false);
  });

  it('rejects a correctly signed request replayed after the allowed age', () => {
    const old = String(nowMs / 1000 - INTERACTION_MAX_AGE_SECONDS - 1);
    expect(verifier.verify(signature(old, body), old, body)).toBe(false);
  });

  it('refuses a public key that is not 32 bytes of hex', () => {
    expect(() => new InteractionVerifier('abcd')).toThrow(/64 hex/);
  });
});
