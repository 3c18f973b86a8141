import { randomBytes } from 'node:crypto';
import { openPlatformAccess, sealPlatformAccess } from './platform-access';

const token = () => randomBytes(32).toString('base64url');

describe('sealed platform access', () => {
  const access = { token: 'platform-access-token-0123456789', expires_at: '2030-01-01T00:00:00.000Z' };

  it('opens with the session token it was sealed for, and shows nothing of the access token', () => {
    const session = token();
    const sealed = sealPlatformAccess(session, access);
    expect(sealed).not.toContain(access.token);
    expect(Buffer.from(sealed, 'base64url').toString('latin1')).not.toContain(access.token);
    expect(openPlatformAccess(session, sealed)).toEqual(access);
    // A fresh IV every time: the same access sealed twice looks unrelated.
    expect(sealPlatformAccess(session, access)).not.toBe(sealed);
  });

  it("does not open with another session's token, nor when tampered with", () => {
    const session = token();
    const sealed = sealPlatformAccess(session, access);
    expect(openPlatformAccess(token(), sealed)).toBeNull();
    const bytes = Buffer.from(sealed, 'base64url');
    bytes[bytes.length - 1] ^= 1;
    expect(openPlatformAccess(session, bytes.toString('base64url'))).toBeNull();
    expect(openPlatformAccess(session, 'short')).toBeNull();
  });
});
