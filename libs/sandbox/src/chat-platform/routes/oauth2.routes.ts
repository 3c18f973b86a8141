import type { Caller } from '../caller';
import { oauthError } from '../oauth-error';
import type { OAuthApp } from '../oauth-store';
import type { PlatformStore } from '../platform-store';
import { tokenWire } from '../wire-format';
import { type PlatformRoute, ok } from './platform-route';

/** A form field that must be there. */
function required(form: URLSearchParams, name: string): string {
  const value = form.get(name);
  if (!value) throw oauthError.missingParameter(name);
  return value;
}

/** The client authenticates with HTTP Basic or, as the platform also allows, with form fields. */
function authenticateClient(form: URLSearchParams, caller: Caller, store: PlatformStore): OAuthApp {
  const basic = caller.kind === 'anonymous' ? caller.basic : undefined;
  const app = basic
    ? store.oauth.authenticate(basic.clientId, basic.clientSecret)
    : store.oauth.authenticate(form.get('client_id') ?? undefined, form.get('client_secret') ?? undefined);
  if (!app) throw oauthError.invalidClient();
  return app;
}

export const oauth2Routes: PlatformRoute[] = [
  {
    method: 'POST',
    path: '/oauth2/token',
    access: { kind: 'oauth-client' },
    bodyFormat: 'form',
    handle: ({ body, caller }, store) => {
      const form = body instanceof URLSearchParams ? body : new URLSearchParams();
      // The platform reads only a form body here and checks the grant type first: a JSON body
      // answers unsupported_grant_type, not invalid_client.
      const grantType = form.get('grant_type');
      if (grantType !== 'authorization_code' && grantType !== 'refresh_token') {
        throw oauthError.unsupportedGrantType();
      }
      const app = authenticateClient(form, caller, store);
      const now = Date.now();
      const tokens =
        grantType === 'authorization_code'
          ? store.oauth.redeemCode(app, required(form, 'code'), required(form, 'redirect_uri'), now)
          : store.oauth.refresh(app, required(form, 'refresh_token'), now);
      return ok(tokenWire(tokens));
    },
  },
];
