import type { PlatformStore } from './platform-store';

/** Where the platform serves the consent page: on the site, not under `/api`. */
export const AUTHORIZE_PAGE_PATH = '/oauth2/authorize';

export type PageResponse = { status: 302; location: string } | { status: 400; text: string };

const ACCESS_DENIED = 'The resource owner or authorization server denied the request';

/**
 * The consent page of the authorization-code grant, answered as the signed-in user: they agree
 * (302 to the redirect URI with a one-time code) or refuse (302 with `error=access_denied`). An
 * unknown client or an unregistered redirect URI gets an error page and no redirect, as on the
 * platform: redirecting there would hand the answer to whoever wrote the link.
 */
export function authorizePage(query: URLSearchParams, store: PlatformStore, now: number): PageResponse {
  const app = store.oauth.app(query.get('client_id') ?? '');
  if (!app) return { status: 400, text: 'Unknown Application' };
  const redirectUri = query.get('redirect_uri');
  if (redirectUri === null || !app.redirectUris.includes(redirectUri)) {
    return { status: 400, text: 'Invalid OAuth2 redirect_uri' };
  }
  const back = (answer: Record<string, string>) => redirect(redirectUri, answer, query.get('state'));
  if (query.get('response_type') !== 'code') {
    return back({
      error: 'unsupported_response_type',
      error_description: 'The fake platform serves the authorization-code grant only.',
    });
  }
  const scopes = [...new Set((query.get('scope') ?? '').split(' ').filter(Boolean))];
  if (!scopes.includes('identify')) {
    return back({
      error: 'invalid_scope',
      error_description: 'The requested scope is invalid, unknown, or malformed.',
    });
  }
  // `prompt` only decides whether a user who agreed before sees the page again; the fake's user
  // answers at once either way. A refusal waits for a signed-in user to be asked.
  const userId = store.oauth.signedInUserId;
  if (userId === undefined || store.oauth.takeDenial()) {
    return back({ error: 'access_denied', error_description: ACCESS_DENIED });
  }
  const code = store.oauth.issueCode({ clientId: app.clientId, userId, redirectUri, scopes }, now);
  return back({ code });
}

/** The redirect URI with the answer added to its query, and `state` echoed when it was sent. */
function redirect(redirectUri: string, answer: Record<string, string>, state: string | null): PageResponse {
  const location = new URL(redirectUri);
  for (const [name, value] of Object.entries(answer)) location.searchParams.append(name, value);
  if (state !== null) location.searchParams.append('state', state);
  return { status: 302, location: location.toString() };
}
