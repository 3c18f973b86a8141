import { Inject, Injectable } from '@nestjs/common';
import { KEY_VALUE_STORE, type KeyValueStore } from '@lib/key-value';
import { createHash, randomBytes } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { openPlatformAccess, type PlatformAccess, sealPlatformAccess } from './platform-access';

export interface Session {
  session_id: string;
  user_id: string;
  platform_user_id: string;
  created_at: string;
  expires_at: string;
  /** The user's platform access token (for their guild list), sealed with the session token. */
  platform_access?: string;
}

export const SESSION_OPTIONS = Symbol('SESSION_OPTIONS');

/**
 * Server-side sessions (docs/decisions/sessions.md): the client holds an opaque random token (cookie `sid` or
 * `Authorization: Bearer`); the key-value store (Redis, or Postgres in standalone mode) holds the
 * session under the token's SHA-256, so a copy of the store yields no usable token. Fixed lifetime
 * from login; logout deletes it.
 */
@Injectable()
export class Sessions {
  constructor(
    @Inject(KEY_VALUE_STORE) private readonly store: KeyValueStore,
    @Inject(SESSION_OPTIONS) private readonly options: { ttlSeconds: number },
  ) {}

  async open(
    user: { user_id: string; platform_user_id: string },
    platformAccess?: PlatformAccess,
  ): Promise<{ token: string; session: Session }> {
    const token = randomBytes(32).toString('base64url');
    const now = Date.now();
    const session: Session = {
      session_id: uuidv7(),
      user_id: user.user_id,
      platform_user_id: user.platform_user_id,
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + this.options.ttlSeconds * 1000).toISOString(),
      ...(platformAccess ? { platform_access: sealPlatformAccess(token, platformAccess) } : {}),
    };
    await this.store.set(key(token), JSON.stringify(session), this.options.ttlSeconds);
    return { token, session };
  }

  /** The live session of a token, or null (unknown, expired, logged out, malformed). */
  async find(token: string): Promise<Session | null> {
    if (!TOKEN.test(token)) return null;
    const raw = await this.store.get(key(token));
    return raw ? (JSON.parse(raw) as Session) : null;
  }

  /**
   * The user's platform access token kept with the session `token` opens, while the platform still
   * honours it; null when the session has none (an older login) or it has expired.
   */
  platformAccessToken(session: Session, token: string, now = Date.now()): string | null {
    const access = session.platform_access ? openPlatformAccess(token, session.platform_access) : null;
    return access && Date.parse(access.expires_at) > now ? access.token : null;
  }

  async close(token: string): Promise<void> {
    if (TOKEN.test(token)) await this.store.delete(key(token));
  }
}

/** 32 random bytes in base64url. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

function key(token: string): string {
  return `session:${createHash('sha256').update(token).digest('hex')}`;
}
