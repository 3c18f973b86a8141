import { OAuthError } from './oauth-error';
import { ACCESS_TOKEN_LIFETIME_SECONDS, CODE_LIFETIME_MS, type OAuthApp, OAuthStore } from './oauth-store';

const T0 = Date.UTC(2025, 0, 1);
const REDIRECT = 'https://dashboard.example/auth/callback';
const APP: OAuthApp = { clientId: '900000000000000001', clientSecret: 'secret-1', redirectUris: [REDIRECT] };
const OTHER_APP: OAuthApp = {
  clientId: '900000000000000002',
  clientSecret: 'secret-2',
  redirectUris: [REDIRECT],
};
const USER = '300000000000000001';

/** The OAuthError the call throws. */
function refusal(call: () => unknown): OAuthError {
  try {
    call();
  } catch (error) {
    if (error instanceof OAuthError) return error;
    throw error;
  }
  throw new Error('expected an OAuthError');
}

describe(OAuthStore.name, () => {
  let sut: OAuthStore;

  beforeEach(() => {
    sut = new OAuthStore();
    sut.registerApp(APP);
    sut.registerApp(OTHER_APP);
  });

  const issueCode = (now: number) =>
    sut.issueCode({ clientId: APP.clientId, userId: USER, redirectUri: REDIRECT, scopes: ['identify'] }, now);

  it('takes a code for 10 minutes, once', () => {
    const fresh = issueCode(T0);
    expect(sut.redeemCode(APP, fresh, REDIRECT, T0 + CODE_LIFETIME_MS - 1)).toMatchObject({
      scopes: ['identify'],
      expiresInSeconds: ACCESS_TOKEN_LIFETIME_SECONDS,
    });
    expect(refusal(() => sut.redeemCode(APP, fresh, REDIRECT, T0 + 1)).body()).toEqual({
      error: 'invalid_grant',
      error_description: 'Invalid "code" in request.',
    });
    const late = issueCode(T0);
    expect(refusal(() => sut.redeemCode(APP, late, REDIRECT, T0 + CODE_LIFETIME_MS)).error).toBe(
      'invalid_grant',
    );
  });

  it("refuses another client's code and spends it, like one sent with the wrong redirect URI", () => {
    const code = issueCode(T0);
    expect(refusal(() => sut.redeemCode(OTHER_APP, code, REDIRECT, T0)).description).toBe(
      'Invalid "code" in request.',
    );
    expect(refusal(() => sut.redeemCode(APP, code, REDIRECT, T0)).error).toBe('invalid_grant');

    const misdirected = issueCode(T0);
    expect(refusal(() => sut.redeemCode(APP, misdirected, `${REDIRECT}/x`, T0)).description).toBe(
      'Invalid "redirect_uri" in request.',
    );
    expect(refusal(() => sut.redeemCode(APP, misdirected, REDIRECT, T0)).description).toBe(
      'Invalid "code" in request.',
    );
  });

  it('grants an access token for a week', () => {
    const { accessToken } = sut.redeemCode(APP, issueCode(T0), REDIRECT, T0);
    const week = ACCESS_TOKEN_LIFETIME_SECONDS * 1000;
    expect(sut.accessGrant(accessToken, T0 + week - 1)).toEqual({
      clientId: APP.clientId,
      userId: USER,
      scopes: ['identify'],
      expiresAt: T0 + week,
    });
    expect(sut.accessGrant(accessToken, T0 + week)).toBeUndefined();
    expect(sut.accessGrant('no-such-token', T0)).toBeUndefined();
  });

  it('rotates the refresh token, for its own client only', () => {
    const first = sut.redeemCode(APP, issueCode(T0), REDIRECT, T0);
    expect(refusal(() => sut.refresh(OTHER_APP, first.refreshToken, T0)).description).toBe(
      'Invalid "refresh_token" in request.',
    );
    const second = sut.refresh(APP, first.refreshToken, T0 + 1000);
    expect(second.accessToken).not.toBe(first.accessToken);
    expect(second.refreshToken).not.toBe(first.refreshToken);
    expect(sut.accessGrant(second.accessToken, T0 + 1000)).toMatchObject({ userId: USER });
    expect(refusal(() => sut.refresh(APP, first.refreshToken, T0 + 2000)).error).toBe('invalid_grant');
  });

  it('authenticates a client by id and secret', () => {
    expect(sut.authenticate(APP.clientId, APP.clientSecret)).toEqual(APP);
    expect(sut.authenticate(APP.clientId, OTHER_APP.clientSecret)).toBeUndefined();
    expect(sut.authenticate(APP.clientId, undefined)).toBeUndefined();
    expect(sut.authenticate('900000000000000009', APP.clientSecret)).toBeUndefined();
  });

  it('uses a refusal up on the consent it refuses', () => {
    sut.denyNextConsent();
    expect([sut.takeDenial(), sut.takeDenial()]).toEqual([true, false]);
  });

  it('refuses a redirect URI that is not an absolute URL', () => {
    expect(() => sut.registerApp({ ...APP, redirectUris: ['/auth/callback'] })).toThrow(/absolute URL/);
  });

  it('forgets applications, the signed-in user, a pending refusal, codes and tokens on clear', () => {
    const code = issueCode(T0);
    const { accessToken } = sut.redeemCode(APP, issueCode(T0), REDIRECT, T0);
    sut.signedInUserId = USER;
    sut.denyNextConsent();
    sut.clear();
    expect([sut.app(APP.clientId), sut.signedInUserId, sut.takeDenial()]).toEqual([
      undefined,
      undefined,
      false,
    ]);
    expect(sut.accessGrant(accessToken, T0)).toBeUndefined();
    sut.registerApp(APP);
    expect(refusal(() => sut.redeemCode(APP, code, REDIRECT, T0)).error).toBe('invalid_grant');
  });
});
