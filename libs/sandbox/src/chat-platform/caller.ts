import type { BotAccounts } from './bot-accounts';
import type { OAuthStore } from './oauth-store';

/** Who a request speaks for, from its Authorization header. */
export type Caller =
  /** A bot token: the fake's own bot's, or one a test registered for another user. */
  | { kind: 'bot'; userId: string }
  /** A user's OAuth2 access token (`Bearer`) and the scopes it was granted. */
  | { kind: 'user'; userId: string; scopes: readonly string[] }
  /** Neither; `basic` holds the HTTP Basic credentials an OAuth2 client sent, if it did. */
  | { kind: 'anonymous'; basic?: { clientId: string; clientSecret: string } };

/**
 * Who may call an endpoint. Most of the API is the bot's alone: the platform answers a user's
 * access token there with 401, whatever its scopes. A few endpoints also take a user's token
 * granted a scope (`GET /users/@me` with `identify`), and the token endpoint takes anyone, as it
 * authenticates the OAuth2 client itself, as do the interaction webhooks, whose token is in the path.
 */
export type RouteAccess =
  | { kind: 'bot' }
  | { kind: 'bot-or-user'; scope: string }
  | { kind: 'oauth-client' }
  /** The path carries the credential (an interaction's token): no Authorization is needed. */
  | { kind: 'token-in-path' };

export const BOT_ONLY: RouteAccess = { kind: 'bot' };

export function identifyCaller(
  authorization: string | undefined,
  bots: BotAccounts,
  oauth: OAuthStore,
  now: number,
): Caller {
  const [, scheme, credentials] = /^(\S+) +(\S+)$/.exec(authorization ?? '') ?? [];
  // The bot's `Bot` prefix is checked as sent, as the platform does.
  const botUserId = scheme === 'Bot' ? bots.userIdFor(credentials) : undefined;
  if (botUserId !== undefined) return { kind: 'bot', userId: botUserId };
  // RFC 7235: the scheme is case-insensitive.
  switch (scheme?.toLowerCase()) {
    case 'bearer': {
      const grant = oauth.accessGrant(credentials, now);
      return grant ? { kind: 'user', userId: grant.userId, scopes: grant.scopes } : { kind: 'anonymous' };
    }
    case 'basic':
      return { kind: 'anonymous', basic: basicCredentials(credentials) };
    default:
      return { kind: 'anonymous' };
  }
}

export function admits(access: RouteAccess, caller: Caller): boolean {
  switch (access.kind) {
    case 'bot':
      return caller.kind === 'bot';
    case 'bot-or-user':
      return caller.kind === 'bot' || (caller.kind === 'user' && caller.scopes.includes(access.scope));
    case 'oauth-client':
    case 'token-in-path':
      return true;
  }
}

/**
 * `base64(client_id:client_secret)`. RFC 6749 2.3.1 form-encodes both first, which changes
 * nothing for the platform's ids (digits) and secrets (base64url), so they are taken as sent.
 */
function basicCredentials(encoded: string): { clientId: string; clientSecret: string } | undefined {
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { clientId: decoded.slice(0, colon), clientSecret: decoded.slice(colon + 1) };
}
