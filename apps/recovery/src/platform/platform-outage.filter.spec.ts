import type { ArgumentsHost } from '@nestjs/common';
import { ChatPlatformError } from '@lib/chat-platform';
import { guildStateUnavailable, toUserFacingError } from './platform-errors';
import { PlatformOutageFilter } from './platform-outage.filter';
import { SnapshotErrors } from '../snapshots/snapshots.errors';

/** What the filter wrote: status, headers (setHeader and writeHead together) and the body. */
function answerTo(error: unknown) {
  const headers: Record<string, string> = {};
  const written: { status?: number; body?: Record<string, unknown> } = {};
  const response = {
    headersSent: false,
    setHeader: (name: string, value: string) => {
      headers[name.toLowerCase()] = value;
    },
    writeHead: (status: number, more: Record<string, string | number>) => {
      written.status = status;
      for (const [name, value] of Object.entries(more)) headers[name.toLowerCase()] = String(value);
    },
    end: (body: string) => {
      written.body = JSON.parse(body) as Record<string, unknown>;
    },
  };
  const request = { id: 'req-1', originalUrl: '/api/v1/restore/preview', complete: true };
  const host = {
    getType: () => 'http',
    switchToHttp: () => ({ getRequest: () => request, getResponse: () => response }),
  } as unknown as ArgumentsHost;
  new PlatformOutageFilter().catch(error, host);
  return { ...written, headers };
}

describe(PlatformOutageFilter.name, () => {
  it('answers the MANAGE_GUILD check that met an outage as the spec’s 500, with when to retry', () => {
    const outage = toUserFacingError(new ChatPlatformError('PlatformUnavailable', '503 after retries'));
    expect(outage).toMatchObject({ code: 'ErrPlatformUnavailable', status: 503 });
    const answer = answerTo(outage);
    expect(answer).toMatchObject({
      status: 500,
      body: {
        code: 'ErrGuildStateUnavailable',
        title: 'The chat platform is unavailable',
        retry_after_seconds: 30,
        request_id: 'req-1',
      },
      headers: { 'retry-after': '30' },
    });
  });

  it('says what the platform refused, without a retry time, when waiting would not help', () => {
    const stateRead = answerTo(guildStateUnavailable('GuildNotFound'));
    expect(stateRead).toMatchObject({
      status: 500,
      body: { code: 'ErrGuildStateUnavailable', title: 'Cannot fetch the current guild state' },
    });
    expect(stateRead.body).not.toHaveProperty('retry_after_seconds');
    expect(stateRead.headers).not.toHaveProperty('retry-after');
    const accessCheck = answerTo(toUserFacingError(new ChatPlatformError('GuildNotFound', 'Unknown Guild')));
    expect(accessCheck).toMatchObject({ status: 404, body: { code: 'ErrGuildNotFound' } });
    expect(accessCheck.headers).not.toHaveProperty('retry-after');
  });

  it('answers everything else as the global filter does', () => {
    const answer = answerTo(SnapshotErrors.notFound());
    expect(answer).toMatchObject({ status: 404, body: { code: 'ErrSnapshotNotFound', request_id: 'req-1' } });
    expect(answer.headers).not.toHaveProperty('retry-after');
    expect(answerTo(new Error('boom'))).toMatchObject({ status: 500, body: { code: 'ErrInternal' } });
  });
});
