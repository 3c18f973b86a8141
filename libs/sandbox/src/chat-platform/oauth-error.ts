/**
 * An answer of the OAuth2 token endpoint. It speaks RFC 6749's error format
 * (`{ error, error_description }`), not the API's `{ message, code }`, as on the platform.
 */
export class OAuthError extends Error {
  constructor(
    readonly status: 400 | 401,
    readonly error: string,
    readonly description?: string,
  ) {
    super(description ?? error);
  }

  body(): { error: string; error_description?: string } {
    return { error: this.error, ...(this.description ? { error_description: this.description } : {}) };
  }
}

/** The token endpoint's errors, with the platform's descriptions. */
export const oauthError = {
  /** A required parameter is missing, e.g. `Missing "code" in request.` */
  missingParameter: (name: string) => new OAuthError(400, 'invalid_request', `Missing "${name}" in request.`),
  /** Unknown, wrong or missing client credentials. */
  invalidClient: () => new OAuthError(401, 'invalid_client'),
  /** A code or refresh token that is unknown, used, expired or another client's; a wrong redirect_uri. */
  invalidGrant: (parameter: 'code' | 'redirect_uri' | 'refresh_token') =>
    new OAuthError(400, 'invalid_grant', `Invalid "${parameter}" in request.`),
  unsupportedGrantType: () => new OAuthError(400, 'unsupported_grant_type'),
};
