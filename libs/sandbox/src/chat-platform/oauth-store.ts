import { randomBytes } from 'node:crypto';
import { oauthError } from './oauth-error';

/** An application registered with the platform for OAuth2 ("Login with ..."). */
export interface OAuthApp {
  clientId: string;
  clientSecret: string;
  /** The only URIs the platform redirects to, compared exactly. */
  redirectUris: string[];
}

/** What an access token stands for. */
export interface AccessGrant {
  clientId: string;
  userId: string;
  scopes: readonly string[];
  /** Epoch ms. */
  expiresAt: number;
}

/** What one exchange at the token endpoint hands out. */
export interface IssuedTokens {
  accessToken: string;
  refreshToken: string;
  expiresInSeconds: number;
  scopes: readonly string[];
}

interface AuthorizationCode {
  clientId: string;
  userId: string;
  /** The token request must name the same URI (RFC 6749 4.1.3). */
  redirectUri: string;
  scopes: readonly string[];
  expiresAt: number;
}

interface RefreshGrant {
  clientId: string;
  userId: string;
  scopes: readonly string[];
}

export const CODE_LIFETIME_MS = 10 * 60_000;
/** The `expires_in` the platform answers: a week. */
export const ACCESS_TOKEN_LIFETIME_SECONDS = 604_800;

/** 32 base64url characters (192 bits): unguessable, and safe in a query string unencoded. */
function randomToken(): string {
  return randomBytes(24).toString('base64url');
}

/** Drops the expired head of a map kept in expiry order. */
function forgetExpired(entries: Map<string, { expiresAt: number }>, now: number): void {
  for (const [key, entry] of entries) {
    if (entry.expiresAt > now) return;
    entries.delete(key);
  }
}

/**
 * The platform's side of the OAuth2 authorization-code grant: registered applications, the user
 * the test's "browser" is signed in as, and the codes and tokens issued. Methods take `now` so
 * expiry can be tested without waiting. Codes and access tokens all live equally long, so their
 * maps (in issue order) are also in expiry order.
 */
export class OAuthStore {
  /** Undefined: nobody is signed in, so a consent page can only refuse. */
  signedInUserId: string | undefined;
  private denyNext = false;
  private readonly apps = new Map<string, OAuthApp>();
  private readonly codes = new Map<string, AuthorizationCode>();
  private readonly accessTokens = new Map<string, AccessGrant>();
  private readonly refreshTokens = new Map<string, RefreshGrant>();

  /** Replaces an application registered under the same client id. */
  registerApp(app: OAuthApp): void {
    for (const uri of app.redirectUris) {
      if (!URL.canParse(uri)) throw new Error(`redirect URI ${uri} is not an absolute URL`);
    }
    this.apps.set(app.clientId, { ...app, redirectUris: [...app.redirectUris] });
  }

  app(clientId: string): OAuthApp | undefined {
    return this.apps.get(clientId);
  }

  /** The application these credentials belong to; undefined when either is wrong or missing. */
  authenticate(clientId: string | undefined, clientSecret: string | undefined): OAuthApp | undefined {
    const app = clientId === undefined ? undefined : this.apps.get(clientId);
    return app && app.clientSecret === clientSecret ? app : undefined;
  }

  /** The signed-in user will refuse the next consent they are asked for. */
  denyNextConsent(): void {
    this.denyNext = true;
  }

  /** Whether the user refuses this consent; a refusal is used up by the consent it refuses. */
  takeDenial(): boolean {
    const denied = this.denyNext;
    this.denyNext = false;
    return denied;
  }

  issueCode(grant: Omit<AuthorizationCode, 'expiresAt'>, now: number): string {
    forgetExpired(this.codes, now);
    const code = randomToken();
    this.codes.set(code, { ...grant, scopes: [...grant.scopes], expiresAt: now + CODE_LIFETIME_MS });
    return code;
  }

  /**
   * Exchanges a code for tokens. The code is spent by the attempt whatever its outcome, so a code
   * that leaked through a wrong redirect URI or another client cannot be tried again.
   */
  redeemCode(app: OAuthApp, code: string, redirectUri: string, now: number): IssuedTokens {
    const issued = this.codes.get(code);
    this.codes.delete(code);
    if (!issued || issued.expiresAt <= now || issued.clientId !== app.clientId) {
      throw oauthError.invalidGrant('code');
    }
    if (issued.redirectUri !== redirectUri) throw oauthError.invalidGrant('redirect_uri');
    return this.issueTokens(issued, now);
  }

  /** A new access token, and a new refresh token in place of the one presented. */
  refresh(app: OAuthApp, refreshToken: string, now: number): IssuedTokens {
    const grant = this.refreshTokens.get(refreshToken);
    if (!grant || grant.clientId !== app.clientId) throw oauthError.invalidGrant('refresh_token');
    this.refreshTokens.delete(refreshToken);
    return this.issueTokens(grant, now);
  }

  /** What the access token grants; undefined when it is unknown or expired. */
  accessGrant(accessToken: string, now: number): AccessGrant | undefined {
    const grant = this.accessTokens.get(accessToken);
    return grant && grant.expiresAt > now ? grant : undefined;
  }

  /** Every access token issued and not expired yet (a test looks for them where they must not be). */
  issuedAccessTokens(now: number): string[] {
    return [...this.accessTokens].filter(([, grant]) => grant.expiresAt > now).map(([token]) => token);
  }

  /** Forgets applications, the signed-in user, a pending refusal, codes and tokens. */
  clear(): void {
    this.signedInUserId = undefined;
    this.denyNext = false;
    this.apps.clear();
    this.codes.clear();
    this.accessTokens.clear();
    this.refreshTokens.clear();
  }

  private issueTokens({ clientId, userId, scopes }: RefreshGrant, now: number): IssuedTokens {
    forgetExpired(this.accessTokens, now);
    const accessToken = randomToken();
    const refreshToken = randomToken();
    const expiresAt = now + ACCESS_TOKEN_LIFETIME_SECONDS * 1000;
    this.accessTokens.set(accessToken, { clientId, userId, scopes, expiresAt });
    this.refreshTokens.set(refreshToken, { clientId, userId, scopes });
    return { accessToken, refreshToken, expiresInSeconds: ACCESS_TOKEN_LIFETIME_SECONDS, scopes };
  }
}
