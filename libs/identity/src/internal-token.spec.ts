import type { InternalIdentity } from '@lib/contracts';
import { SignJWT } from 'jose';
import { InternalTokenCodec } from './internal-token';

const secret = 'a'.repeat(40);
const user: InternalIdentity = { kind: 'user', user_id: 'u-1', platform_user_id: '123', session_id: 's-1' };

describe(InternalTokenCodec.name, () => {
  const sut = new InternalTokenCodec(secret, 'gateway');

  it('round-trips a user identity', async () => {
    await expect(sut.verify(await sut.sign(user))).resolves.toEqual(user);
  });

  it('round-trips a service identity', async () => {
    const service: InternalIdentity = { kind: 'service', service: 'billing' };
    await expect(sut.verify(await sut.sign(service))).resolves.toEqual(service);
  });

  it('refuses a token signed with another secret', async () => {
    const forged = await new InternalTokenCodec('b'.repeat(40), 'gateway').sign(user);
    await expect(sut.verify(forged)).resolves.toBeNull();
  });

  it('refuses an expired token', async () => {
    const expired = await new SignJWT({ identity: user })
      .setProtectedHeader({ alg: 'HS256' })
      .setAudience('guildkeeper-internal')
      .setIssuedAt(Math.floor(Date.now() / 1000) - 120)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 60)
      .sign(new TextEncoder().encode(secret));
    await expect(sut.verify(expired)).resolves.toBeNull();
  });

  it('refuses a token for another audience, a tampered one, garbage and nothing', async () => {
    const otherAudience = await new SignJWT({ identity: user })
      .setProtectedHeader({ alg: 'HS256' })
      .setAudience('someone-else')
      .setExpirationTime('1m')
      .sign(new TextEncoder().encode(secret));
    const token = await sut.sign(user);
    const tampered = `${token.slice(0, -3)}${token.slice(-3) === 'AAA' ? 'BBB' : 'AAA'}`;
    await expect(sut.verify(otherAudience)).resolves.toBeNull();
    await expect(sut.verify(tampered)).resolves.toBeNull();
    await expect(sut.verify('not-a-jwt')).resolves.toBeNull();
    await expect(sut.verify(undefined)).resolves.toBeNull();
  });

  it('refuses a validly signed token whose identity has the wrong shape', async () => {
    const malformed = await new SignJWT({ identity: { kind: 'user', user_id: 7 } })
      .setProtectedHeader({ alg: 'HS256' })
      .setAudience('guildkeeper-internal')
      .setExpirationTime('1m')
      .sign(new TextEncoder().encode(secret));
    await expect(sut.verify(malformed)).resolves.toBeNull();
  });
});
