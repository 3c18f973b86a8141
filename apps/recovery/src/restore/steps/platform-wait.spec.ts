import { ChatPlatformError } from '@lib/chat-platform';
import { platformWaitOf, waitedFor } from './platform-wait';

function rateLimited(method: string, path: string, retryAfterMs: number): ChatPlatformError {
  return new ChatPlatformError('RateLimited', 'slow down', {
    status: 429,
    platform_code: null,
    method,
    path,
    retry_after_ms: retryAfterMs,
  });
}

describe(platformWaitOf.name, () => {
  const now = Date.parse('2026-11-29T10:00:00.000Z');

  it('names the limit from the route the platform refused, and says until when', () => {
    const cases: [string, string, string][] = [
      ['POST', '/api/v10/guilds/123/roles', 'role_creation_quota'],
      ['POST', '/api/v10/guilds/123/channels', 'channel_creation_quota'],
      ['PATCH', '/api/v10/channels/456', 'channel_edit_limit'],
      ['PATCH', '/api/v10/guilds/123/roles/789', 'rate_limit'],
    ];
    for (const [method, path, reason] of cases) {
      expect(platformWaitOf(rateLimited(method, path, 60_000), now)).toEqual({
        reason,
        until: '2026-11-29T10:01:00.000Z',
      });
    }
  });

  it('is no wait for any other failure', () => {
    expect(platformWaitOf(new ChatPlatformError('NotFound', 'gone'), now)).toBeUndefined();
    expect(platformWaitOf(new Error('socket hang up'), now)).toBeUndefined();
  });
});

describe(waitedFor.name, () => {
  it('answers the longest wait of work side by side, and throws any other failure', () => {
    const short = rateLimited('POST', '/api/v10/guilds/1/roles', 1_000);
    const long = rateLimited('POST', '/api/v10/guilds/1/channels', 3_600_000);
    expect(
      waitedFor([
        { status: 'rejected', reason: short },
        { status: 'fulfilled', value: 1 },
        { status: 'rejected', reason: long },
      ])?.reason,
    ).toBe('channel_creation_quota');
    expect(waitedFor([{ status: 'fulfilled', value: 1 }])).toBeUndefined();
    const other = new Error('boom');
    expect(() =>
      waitedFor([
        { status: 'rejected', reason: short },
        { status: 'rejected', reason: other },
      ]),
    ).toThrow(other);
  });
});
