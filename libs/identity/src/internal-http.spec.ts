import { INTERNAL_TOKEN_HEADER, REQUEST_ID_HEADER } from '@lib/contracts';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import {
  answerJson,
  scriptedUpstreamForSuite,
  unreachableUrl,
} from '../../../test/support/scripted-upstream';
import { InternalHttp, InternalHttpError } from './internal-http';
import { generateInternalKeys } from './internal-keys';
import { InternalTokenCodec } from './internal-token';

describe(InternalHttp.name, () => {
  const keys = generateInternalKeys();
  const codec = InternalTokenCodec.fromKeySet('billing', keys);
  const licensing = InternalTokenCodec.fromKeySet('licensing', keys);
  const seen: IncomingHttpHeaders[] = [];
  const baseUrl = scriptedUpstreamForSuite((req, _body, res) => {
    seen.push(req.headers);
    if (req.url === '/moved') res.writeHead(302, { location: '/elsewhere' }).end();
    else answerJson(res, 200, { ok: true });
  });
  beforeEach(() => (seen.length = 0));

  it('sends a valid service token and reuses it for half its life, then signs a new one', async () => {
    let now = 1_000_000;
    const sign = jest.spyOn(codec, 'sign');
    const http = new InternalHttp(baseUrl(), codec, 'licensing', 2_000, () => now);

    await expect(http.get('/a')).resolves.toEqual({ ok: true });
    await http.post('/b', { x: 1 });
    now += 29_999;
    await http.get('/c');
    expect(sign).toHaveBeenCalledTimes(1);
    now += 1;
    await http.get('/d');
    expect(sign).toHaveBeenCalledTimes(2);

    const tokens = seen.map((headers) => headers[INTERNAL_TOKEN_HEADER] as string);
    expect(new Set(tokens.slice(0, 3)).size).toBe(1);
    await expect(licensing.verify(tokens[3])).resolves.toEqual({ kind: 'service', service: 'billing' });
    sign.mockRestore();
  });

  it('signs again after a failed signature instead of serving the failure', async () => {
    const sign = jest.spyOn(codec, 'sign').mockRejectedValueOnce(new Error('no key'));
    const http = new InternalHttp(baseUrl(), codec, 'licensing', 2_000);
    await expect(http.get('/a')).rejects.toThrow('no key');
    await expect(http.get('/a')).resolves.toEqual({ ok: true });
    sign.mockRestore();
  });

  it('does not follow a redirect, so the token goes nowhere else', async () => {
    const http = new InternalHttp(baseUrl(), codec, 'licensing', 2_000);
    await expect(http.get('/moved')).rejects.toMatchObject({ response: { status: 302 } });
    expect(seen.map((headers) => headers.host)).toHaveLength(1);
  });
});

describe(`${InternalHttp.name} on the wire`, () => {
  const keys = generateInternalKeys();
  const codec = InternalTokenCodec.fromKeySet('webhook-intake', keys);
  /** What the service does with each request: the `nth` on its connection, its path and body. */
  let handle: (
    nth: number,
    req: { url?: string; headers: IncomingHttpHeaders; socket: Socket },
    body: string,
    res: ServerResponse,
  ) => void;

  const baseUrl = scriptedUpstreamForSuite((req, body, res, nth) => handle(nth, req, body, res));

  it('posts JSON under the base URL’s path, with the request id, and answers the JSON', async () => {
    const seen: { url?: string; body: unknown; requestId: unknown }[] = [];
    handle = (_nth, req, body, res) => {
      seen.push({ url: req.url, body: JSON.parse(body), requestId: req.headers[REQUEST_ID_HEADER] });
      answerJson(res, 201, { created: true });
    };
    const http = new InternalHttp(`${baseUrl()}/billing/`, codec, 'billing', 2_000, Date.now, {
      requestId: () => 'req-7',
    });
    await expect(http.post('/internal/v1/x', { a: 1 })).resolves.toEqual({ created: true });
    expect(seen).toEqual([{ url: '/billing/internal/v1/x', body: { a: 1 }, requestId: 'req-7' }]);
  });

  it('fails an answer other than 2xx with the answer, and exchange() hands it over as it is', async () => {
    handle = (_nth, _req, _body, res) => answerJson(res, 404, { code: 'ErrGuildNotFound' });
    const http = new InternalHttp(baseUrl(), codec, 'recovery', 2_000);
    const failure = await http.get('/g').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(InternalHttpError);
    expect(failure).toMatchObject({
      reason: 'status',
      message: 'recovery answered 404',
      response: { status: 404, data: { code: 'ErrGuildNotFound' } },
    });
    await expect(http.exchange('GET', '/g', undefined)).resolves.toEqual({
      status: 404,
      data: { code: 'ErrGuildNotFound' },
    });
  });

  it('gives up at its deadline, and says when the service cannot be reached or answers too much', async () => {
    handle = () => undefined; // never answers
    await expect(new InternalHttp(baseUrl(), codec, 'licensing', 100).get('/slow')).rejects.toMatchObject({
      reason: 'timeout',
      message: 'licensing did not answer within 100 ms',
    });

    await expect(
      new InternalHttp(await unreachableUrl(), codec, 'licensing', 2_000).get('/x'),
    ).rejects.toMatchObject({ reason: 'unreachable', code: 'ECONNREFUSED' });

    handle = (_nth, _req, _body, res) => answerJson(res, 200, { text: 'x'.repeat(2_000) });
    const small = new InternalHttp(baseUrl(), codec, 'licensing', 2_000, Date.now, { maxAnswerBytes: 1_024 });
    await expect(small.get('/big')).rejects.toMatchObject({
      reason: 'too_long',
      message: 'licensing answered more than 1 KiB',
    });
  });

  it('sends a read again once on a new connection when a kept-alive one is reset under it; a write only when asked', async () => {
    const sockets = new Set<Socket>();
    let received = 0;
    handle = (nth, req, _body, res) => {
      received += 1;
      sockets.add(req.socket);
      // The second request on a connection finds it closed: a server's idle timeout at that moment.
      if (nth > 1) req.socket.resetAndDestroy();
      else answerJson(res, 200, { ok: true });
    };
    const http = new InternalHttp(baseUrl(), codec, 'licensing', 2_000);
    await expect(http.get('/a')).resolves.toEqual({ ok: true });
    await expect(http.get('/a')).resolves.toEqual({ ok: true });
    expect([received, sockets.size]).toEqual([3, 2]);

    received = 0;
    await expect(http.post('/w', {})).rejects.toMatchObject({ reason: 'unreachable', code: 'ECONNRESET' });
    expect(received).toBe(1);
    await expect(http.post('/w', {})).resolves.toEqual({ ok: true });
    received = 0;
    await expect(http.post('/w', {}, { resendOnStaleConnection: true })).resolves.toEqual({ ok: true });
    expect(received).toBe(2);
  });
});
