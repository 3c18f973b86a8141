import { DiscordAPIError, HTTPError, RateLimitError } from '@discordjs/rest';
import { ChatPlatformError, isChatPlatformError } from './chat-platform-error';
import { toChatPlatformFailure } from './platform-failure.mapper';

const URL = 'http://127.0.0.1:1/api/v10/guilds/100000000000000001/roles';

function apiError(status: number, code: number, message: string): DiscordAPIError {
  return new DiscordAPIError({ code, message }, code, status, 'POST', URL, { body: { name: 'x' } });
}

function mapped(error: unknown): ChatPlatformError {
  const result = toChatPlatformFailure(error);
  expect(result).toBeInstanceOf(ChatPlatformError);
  return result as ChatPlatformError;
}

describe(toChatPlatformFailure.name, () => {
  it('maps a rate limit too long for the client to wait out to RateLimited, with the wait', () => {
    const error = mapped(
      new RateLimitError({
        timeToReset: 0,
        limit: 10,
        method: 'post',
        hash: 'h',
        url: URL,
        route: '/guilds/:id/roles',
        majorParameter: '100000000000000001',
        global: false,
        retryAfter: 7_200_005,
        sublimitTimeout: 7_200_005,
        scope: 'user',
      }),
    );
    expect(error.code).toBe('RateLimited');
    expect(error.retryable).toBe(true);
    expect(error.details).toEqual({
      status: 429,
      platform_code: null,
      method: 'POST',
      path: '/api/v10/guilds/100000000000000001/roles',
      retry_after_ms: 7_200_005,
      scope: 'user',
    });
    expect(error.message).toContain('7201 s');
  });

  it.each([
    [404, 10004, 'Unknown Guild', 'GuildNotFound'],
    [403, 50013, 'Missing Permissions', 'PermissionDenied'],
    [403, 50001, 'Missing Access', 'PermissionDenied'],
    [404, 10003, 'Unknown Channel', 'NotFound'],
    [404, 10011, 'Unknown Role', 'NotFound'],
    [403, 50007, 'Cannot send messages to this user', 'DmBlocked'],
    [400, 50035, 'Invalid Form Body', 'InvalidRequest'],
    [400, 30005, 'Maximum number of guild roles reached (250)', 'InvalidRequest'],
    [401, 0, '401: Unauthorized', 'InvalidRequest'],
  ])('maps %i with platform code %i (%s) to %s', (status, code, message, expected) => {
    const error = mapped(apiError(status, code, message));
    expect(error.code).toBe(expected);
    expect(error.name).toBe(expected);
    expect(error.retryable).toBe(false);
    expect(error.details).toEqual({
      status,
      platform_code: code,
      method: 'POST',
      path: '/api/v10/guilds/100000000000000001/roles',
    });
    expect(error.message).toContain(message);
  });

  it('maps 5xx answers left after the client retried to a retryable PlatformUnavailable', () => {
    const error = mapped(new HTTPError(502, 'Bad Gateway', 'GET', URL, { body: undefined }));
    expect(error).toMatchObject({ code: 'PlatformUnavailable', retryable: true });
    expect(error.details.status).toBe(502);
  });

  it('maps timeouts and refused or reset connections to PlatformUnavailable', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    const wrapped = new TypeError('fetch failed', { cause: refused });
    const timeout = new DOMException('This operation was aborted', 'AbortError');
    const socket = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
    for (const error of [refused, wrapped, timeout, socket]) {
      expect(mapped(error)).toMatchObject({ code: 'PlatformUnavailable', retryable: true });
    }
  });

  it('passes programming errors through unchanged', () => {
    const bug = new TypeError('cannot read properties of undefined');
    expect(toChatPlatformFailure(bug)).toBe(bug);
  });

  it('keeps code and retryable through JSON, where instanceof is lost', () => {
    const rebuilt: unknown = JSON.parse(JSON.stringify(mapped(apiError(404, 10004, 'Unknown Guild'))));
    expect(rebuilt).toMatchObject({ code: 'GuildNotFound', retryable: false, platform_code: 10004 });
    expect(isChatPlatformError(rebuilt)).toBe(true);
    expect(isChatPlatformError(apiError(404, 10004, 'Unknown Guild'))).toBe(false);
    expect(isChatPlatformError({ code: 'ErrSomethingElse' })).toBe(false);
  });
});
