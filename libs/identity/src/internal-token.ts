import { type Ed25519Jwk, parsePublicKeys, parseSigningKey } from '@lib/config';
import { type InternalIdentity, type ServiceName, USER_IDENTITY_ISSUER } from '@lib/contracts';
import { jwtVerify, SignJWT } from 'jose';
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import type { InternalKeySet } from './internal-keys';

const ALGORITHM = 'EdDSA';
/** Long enough for one forwarded request and its retries, short enough to be useless if leaked. */
export const INTERNAL_TOKEN_TTL_SECONDS = 60;

export interface InternalKeyOptions {
  /** This service: the issuer of what it signs and the audience it accepts. */
  service: ServiceName;
  /** `INTERNAL_SIGNING_KEY`: this service's private Ed25519 JWK, kid = `service`. */
  signingKey: string;
  /** `INTERNAL_PUBLIC_KEYS`: every service's public key, kid = its name. */
  publicKeys: string;
}

/**
 * Signs and verifies the short-lived identity token on internal requests (docs/decisions/identity-token.md).
 *
 * Each service signs with a private key of its own (EdDSA) and names itself as issuer; the token is
 * addressed to one service (audience), which believes it only when it verifies with the issuer's
 * public key. Only the gateway, which holds the sessions, may vouch for a user: a user identity
 * issued by anyone else is refused, and a service may only speak as itself. So a compromised
 * service can call its neighbours as itself and nothing more, and a token captured on its way to
 * one service is refused by the others.
 */
export class InternalTokenCodec {
  private readonly privateKey: KeyObject;
  private readonly publicKeys: ReadonlyMap<string, KeyObject>;

  constructor(private readonly options: InternalKeyOptions) {
    const signing = parseSigningKey(options.signingKey);
    if (!signing) throw new Error('INTERNAL_SIGNING_KEY is not an Ed25519 private JWK');
    if (signing.kid !== options.service) {
      throw new Error(`INTERNAL_SIGNING_KEY belongs to ${signing.kid}, not to ${options.service}`);
    }
    const keys = parsePublicKeys(options.publicKeys);
    if (!keys) throw new Error('INTERNAL_PUBLIC_KEYS is not a JWK set of public Ed25519 keys');
    this.privateKey = createPrivateKey({ key: { ...signing }, format: 'jwk' });
    this.publicKeys = new Map(
      keys.map((key: Ed25519Jwk) => [key.kid, createPublicKey({ key: { ...key }, format: 'jwk' })]),
    );
  }

  /** `service`'s codec from a whole key set (standalone mode, tests). */
  static fromKeySet(service: ServiceName, keys: InternalKeySet): InternalTokenCodec {
    return new InternalTokenCodec({
      service,
      signingKey: keys.signingKeys[service],
      publicKeys: keys.publicKeys,
    });
  }

  get service(): ServiceName {
    return this.options.service;
  }

  /** A token for `audience` carrying `identity`; only the gateway may sign a user's identity. */
  async sign(
    identity: InternalIdentity,
    audience: ServiceName,
    ttlSeconds = INTERNAL_TOKEN_TTL_SECONDS,
  ): Promise<string> {
    if (identity.kind === 'user' && this.options.service !== USER_IDENTITY_ISSUER) {
      throw new Error(`only the ${USER_IDENTITY_ISSUER} signs user identities`);
    }
    if (identity.kind === 'service' && identity.service !== this.options.service) {
      throw new Error(`${this.options.service} cannot sign as ${identity.service}`);
    }
    const subject = identity.kind === 'user' ? identity.user_id : `service:${identity.service}`;
    return new SignJWT({ identity })
      .setProtectedHeader({ alg: ALGORITHM, kid: this.options.service })
      .setIssuer(this.options.service)
      .setAudience(audience)
      .setSubject(subject)
      .setIssuedAt()
      .setExpirationTime(`${ttlSeconds}s`)
      .sign(this.privateKey);
  }

  /**
   * The identity of a token addressed to this service, or null for any token that is missing,
   * expired, for another service, signed by a key other than its issuer's, or that claims an
   * identity its issuer may not vouch for.
   */
  async verify(token: string | undefined): Promise<InternalIdentity | null> {
    if (!token) return null;
    try {
      const { payload, protectedHeader } = await jwtVerify(
        token,
        (header) => {
          const key = header.kid === undefined ? undefined : this.publicKeys.get(header.kid);
          if (!key) throw new Error('unknown signer');
          return key;
        },
        { algorithms: [ALGORITHM], audience: this.options.service, requiredClaims: ['iss', 'exp', 'iat'] },
      );
      if (payload.iss !== protectedHeader.kid) return null;
      const identity = payload.identity;
      if (!isIdentity(identity)) return null;
      if (identity.kind === 'user') return payload.iss === USER_IDENTITY_ISSUER ? identity : null;
      return identity.service === payload.iss ? identity : null;
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
