import { defineNotFound, defineProblem } from '@lib/problem-details';

/** The gateway's own problems: login, the session cookie, and reaching the services behind it. */
export const GatewayErrors = {
  invalidOAuthState: defineProblem(
    { code: 'ErrInvalidOAuthState', status: 400, title: 'Login could not be verified' },
    () => ({
      detail: 'This login was not started in this browser, was already used, or expired. Log in again.',
    }),
  ),
  loginFailed: defineProblem({ code: 'ErrLoginFailed', status: 400, title: 'Login failed' }, () => ({
    detail: 'The platform did not accept this login (expired or already used). Log in again.',
  })),
  loginDenied: defineProblem(
    { code: 'ErrLoginDenied', status: 401, title: 'Login denied' },
    (platformError: string) => ({ detail: `The platform said: ${platformError}.` }),
  ),
  platformAccessExpired: defineProblem(
    { code: 'ErrPlatformAccessExpired', status: 401, title: 'Log in again' },
    () => ({
      detail: 'The chat platform no longer lets this session list your guilds. Log in again.',
    }),
  ),
  crossOriginRequest: defineProblem(
    { code: 'ErrCrossOriginRequest', status: 403, title: 'Cross-origin request refused' },
    () => ({
      detail:
        'A change made with the session cookie must come from the dashboard (its Origin); other clients send ' +
        'the session token as Authorization: Bearer.',
    }),
  ),
  platformUnavailable: defineProblem({
    code: 'ErrPlatformUnavailable',
    status: 502,
    title: 'Chat platform unavailable',
  }),
  routeNotFound: defineNotFound('ErrNotFound', 'Route'),
  documentNotFound: defineNotFound('ErrNotFound', 'Document'),
  serviceUnavailable: defineProblem({
    code: 'ErrServiceUnavailable',
    status: 503,
    title: 'Service unavailable',
  }),
  upstreamTimeout: defineProblem({ code: 'ErrUpstreamTimeout', status: 504, title: 'Service timed out' }),
} as const;
