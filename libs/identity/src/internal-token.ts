import { INTERNAL_TOKEN_AUDIENCE, type InternalIdentity } from '@lib/contracts';
import { jwtVerify, SignJWT } from 'jose';

const ALGORITHM = 'HS256';
/** Long enough for one forwarded request and its retries, short enough to be useless if leaked. */
export const INTERNAL_TOKEN_TTL_SECONDS = 60;

/**
 * Signs and verifies the short-lived identity token that the gateway (or a calling service)
 * attaches to internal requests. HS256 with `INTERNAL_JWT_SECRET`.
 */
export class InternalTokenCodec {
  private readonly key: Uint8Array;

  constructor(
    secret: string,
    private readonly issuer: string,
  ) {
    this.key = new TextEncoder().encode(secret);
  }

  async sign(identity: InternalIdentity, ttlSeconds = INTERNAL_TOKEN_TTL_SECONDS): Promise<string> {
    const subject = identity.kind === 'user' ? identity.user_id : `service:${identity.service}`;
    return new SignJWT({ identity })
      .setProtectedHeader({ alg: ALGORITHM })
      .setIssuer(this.issuer)
      .setAudience(INTERNAL_TOKEN_AUDIENCE)
      .setSubject(subject)
      .setIssuedAt()
      .setExpirationTime(`${ttlSeconds}s`)
      .sign(this.key);
  }

  /** Returns the identity, or null for any token that is missing, expired, forged or malformed. */
  async verify(token: string | undefined): Promise<InternalIdentity | null> {
    if (!token) return null;
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: [ALGORITHM],
        audience: INTERNAL_TOKEN_AUDIENCE,
      });
      return isIdentity(payload.identity) ? payload.identity : null;
    } catch {
      return null;
    }
  }
}

function isIdentity(value: unknown): value is InternalIdentity {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Record<string, unknown>;
  if (candidate.kind === 'user') {
    return (
      typeof candidate.user_id === 'string' &&
      typeof candidate.platform_user_id === 'string' &&
      typeof candidate.session_id === 'string'
    );
  }
  return candidate.kind === 'service' && typeof candidate.service === 'string';
}
