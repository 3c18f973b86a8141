import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/** The user's access token at the chat platform, and when the platform said it stops working. */
export interface PlatformAccess {
  token: string;
  expires_at: string;
}

const INFO = 'guildkeeper/session/platform-access';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * The platform access token is kept in the session record, sealed (AES-256-GCM) with a key derived
 * from the session token itself. The store holds sessions under the token's SHA-256 and never the
 * token, so a copy of the store (Redis, or `identity.key_values` in standalone mode) opens no access
 * token either; only a request that carries the session can.
 */
function keyFor(sessionToken: string): Buffer {
  return Buffer.from(hkdfSync('sha256', sessionToken, '', INFO, 32));
}

export function sealPlatformAccess(sessionToken: string, access: PlatformAccess): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyFor(sessionToken), iv);
  const sealed = Buffer.concat([cipher.update(JSON.stringify(access), 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url');
}

/** The access token sealed for this session token; null when it does not open (another session's). */
export function openPlatformAccess(sessionToken: string, sealed: string): PlatformAccess | null {
  const bytes = Buffer.from(sealed, 'base64url');
  if (bytes.length <= IV_BYTES + TAG_BYTES) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyFor(sessionToken), bytes.subarray(0, IV_BYTES));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    const plain = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
    return JSON.parse(plain.toString('utf8')) as PlatformAccess;
  } catch {
    return null;
  }
}
