import { redactUrl } from './redact-url';

describe(redactUrl.name, () => {
  it.each([
    ['/auth/callback?code=abc123&state=xyz', '/auth/callback?code=[redacted]&state=[redacted]'],
    [
      '/auth/callback?state=s&code=c&error=access_denied',
      '/auth/callback?state=[redacted]&code=[redacted]&error=access_denied',
    ],
    ['/auth/callback?%63ode=abc', '/auth/callback?%63ode=[redacted]'],
    ['/auth/callback?CODE=abc&code', '/auth/callback?CODE=[redacted]&code=[redacted]'],
    ['/api/v1/guilds?limit=5', '/api/v1/guilds?limit=5'],
    ['/api/v1/guilds', '/api/v1/guilds'],
    ['/x?%E0%A4%A=1&code=2', '/x?%E0%A4%A=1&code=[redacted]'],
    [
      '/guilds/g/checkout?plan=PRO&checkout=c1&authKey=ak_secret&customerKey=user_1',
      '/guilds/g/checkout?plan=PRO&checkout=c1&authKey=[redacted]&customerKey=user_1',
    ],
    ['/checkout?AUTHKEY=a&authkey=b', '/checkout?AUTHKEY=[redacted]&authkey=[redacted]'],
  ])('%s -> %s', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });
});
