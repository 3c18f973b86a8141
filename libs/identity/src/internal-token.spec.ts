import type { InternalIdentity, ServiceName } from '@lib/contracts';
import { SignJWT } from 'jose';
import { createPrivateKey, generateKeyPairSync, type JsonWebKey, type KeyObject } from 'node:crypto';
import { generateInternalKeys, internalKeysOf } from './internal-keys';
import { InternalTokenCodec } from './internal-token';

const keys = generateInternalKeys();
const codec = (service: ServiceName) => InternalTokenCodec.fromKeySet(service, keys);
const user: InternalIdentity = { kind: 'user', user_id: 'u-1', platform_user_id: '123', session_id: 's-1' };

describe(InternalTokenCodec.name, () => {
  const gateway = codec('gateway');
  const sut = codec('recovery');

  it('carries a user identity from the gateway to the service it is addressed to', async () => {
    await expect(sut.verify(await gateway.sign(user, 'recovery'))).resolves.toEqual(user);
  });

  it('carries a service identity from its own service', async () => {
    const billing = codec('billing');
    await expect(
      sut.verify(await billing.sign({ kind: 'service', service: 'billing' }, 'recovery')),
    ).resolves.toEqual({ kind: 'service', service: 'billing' });
  });

  it('refuses a token addressed to another service', async () => {
    await expect(sut.verify(await gateway.sign(user, 'billing'))).resolves.toBeNull();
  });

  it('never lets a service other than the gateway sign a user identity', async () => {
    await expect(codec('billing').sign(user, 'recovery')).rejects.toThrow(/only the gateway/);
    // Nor is one believed when a service signs it by hand with its own, valid key.
    const forged = await forge({ identity: user, kid: 'billing', issuer: 'billing', key: 'billing' });
    await expect(sut.verify(forged)).resolves.toBeNull();
  });

  it('refuses a service speaking as another service', async () => {
    await expect(
      codec('billing').sign({ kind: 'service', service: 'licensing' }, 'recovery'),
    ).rejects.toThrow();
    const forged = await forge({
      identity: { kind: 'service', service: 'licensing' },
      kid: 'billing',
      issuer: 'billing',
      key: 'billing',
    });
    await expect(sut.verify(forged)).resolves.toBeNull();
  });

  it('refuses a token whose issuer names another key than the one it was signed with', async () => {
    const forged = await forge({ identity: user, kid: 'billing', issuer: 'gateway', key: 'billing' });
    await expect(sut.verify(forged)).resolves.toBeNull();
  });

  it('refuses a token signed by a stranger key under a known service name', async () => {
    const stranger = InternalTokenCodec.fromKeySet(
      'gateway',
      internalKeysOf(() => generateKeyPairSync('ed25519').privateKey),
    );
    await expect(sut.verify(await stranger.sign(user, 'recovery'))).resolves.toBeNull();
  });

  it('refuses the old shared-secret (HS256) tokens and alg "none"', async () => {
    const hs256 = await new SignJWT({ identity: user })
      .setProtectedHeader({ alg: 'HS256', kid: 'gateway' })
      .setIssuer('gateway')
      .setAudience('recovery')
      .setIssuedAt()
      .setExpirationTime('1m')
      .sign(new TextEncoder().encode('s'.repeat(40)));
    const header = Buffer.from(JSON.stringify({ alg: 'none', kid: 'gateway' })).toString('base64url');
    const claims = { identity: user, iss: 'gateway', aud: 'recovery', iat: now(), exp: now() + 60 };
    const unsigned = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`;
    await expect(sut.verify(hs256)).resolves.toBeNull();
    await expect(sut.verify(unsigned)).resolves.toBeNull();
  });

  it('refuses an expired token, a tampered one, garbage and nothing', async () => {
    const expired = await new SignJWT({ identity: user })
      .setProtectedHeader({ alg: 'EdDSA', kid: 'gateway' })
      .setIssuer('gateway')
      .setAudience('recovery')
      .setIssuedAt(now() - 120)
      .setExpirationTime(now() - 60)
      .sign(privateKeyOf('gateway'));
    const token = await gateway.sign(user, 'recovery');
    const tampered = `${token.slice(0, -3)}${token.slice(-3) === 'AAA' ? 'BBB' : 'AAA'}`;
    await expect(sut.verify(expired)).resolves.toBeNull();
    await expect(sut.verify(tampered)).resolves.toBeNull();
    await expect(sut.verify('not-a-jwt')).resolves.toBeNull();
    await expect(sut.verify(undefined)).resolves.toBeNull();
  });

  it('refuses a validly signed token whose identity has the wrong shape', async () => {
    const malformed = await forge({
      identity: { kind: 'user', user_id: 7 },
      kid: 'gateway',
      issuer: 'gateway',
      key: 'gateway',
    });
    await expect(sut.verify(malformed)).resolves.toBeNull();
  });

  it('refuses to start with a key that belongs to another service, or a private key among the public ones', () => {
    expect(
      () =>
        new InternalTokenCodec({
          service: 'recovery',
          signingKey: keys.signingKeys.billing,
          publicKeys: keys.publicKeys,
        }),
    ).toThrow(/belongs to billing/);
    expect(
      () =>
        new InternalTokenCodec({
          service: 'recovery',
          signingKey: keys.signingKeys.recovery,
          publicKeys: JSON.stringify({ keys: [JSON.parse(keys.signingKeys.gateway)] }),
        }),
    ).toThrow(/INTERNAL_PUBLIC_KEYS/);
  });
});

/** A token signed by hand: `kid` and `issuer` as given, with `key`'s private key, for recovery. */
function forge(claims: {
  identity: unknown;
  kid: string;
  issuer: string;
  key: ServiceName;
}): Promise<string> {
  return new SignJWT({ identity: claims.identity })
    .setProtectedHeader({ alg: 'EdDSA', kid: claims.kid })
    .setIssuer(claims.issuer)
    .setAudience('recovery')
    .setIssuedAt()
    .setExpirationTime('1m')
    .sign(privateKeyOf(claims.key));
}

function now(): number {
  return Math.floor(Date.now() / 1000);
}

function privateKeyOf(service: ServiceName): KeyObject {
  return createPrivateKey({ key: JSON.parse(keys.signingKeys[service]) as JsonWebKey, format: 'jwk' });
}
