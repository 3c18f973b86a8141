import express from 'express';
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { captureRawBody, type RawBodyRequest } from './raw-body';

const LIMIT = 64 * 1024;

interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
}

/** POSTs `body`, or with null the head alone (a declared Content-Length then never comes). */
function post(url: string, headers: Record<string, string | number>, body: Buffer | null): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method: 'POST', headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    outgoing.on('error', reject);
    if (body) outgoing.end(body);
    else outgoing.flushHeaders();
  });
}

/**
 * Streams `total` bytes of 'a' as a chunked body, 16 KiB a piece as the connection takes them;
 * returns the answer and how much had been handed over when it came (a capture that reads the
 * whole body answers only after the last piece).
 */
async function streamChunked(url: string, total: number): Promise<{ response: Response; sent: number }> {
  let sent = 0;
  const piece = Buffer.alloc(16 * 1024, 0x61);
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= total) return controller.close();
      const size = Math.min(piece.length, total - sent);
      sent += size;
      controller.enqueue(piece.subarray(0, size));
    },
  });
  const response = await fetch(url, { method: 'POST', body, duplex: 'half' });
  return { response, sent };
}

describe(captureRawBody.name, () => {
  let server: Server;
  let url: string;
  /** What the handler after the capture saw, per request. */
  let handled: { rawBody?: Buffer; rawBodyBytes?: number; error?: unknown }[];
  /** Per request: the bytes its connection read from the request's start until the connection closed. */
  let bytesRead: Promise<number>[];

  const capture = captureRawBody(LIMIT);

  beforeAll(async () => {
    server = createServer((req: RawBodyRequest, res: ServerResponse) => {
      const { socket } = req;
      const before = socket.bytesRead;
      bytesRead.push(
        new Promise((resolve) => socket.once('close', () => resolve(socket.bytesRead - before))),
      );
      capture(req, res, (error?: unknown) => {
        handled.push({ rawBody: req.rawBody, rawBodyBytes: req.rawBodyBytes, error });
        res.writeHead(200).end(`read ${req.rawBodyBytes ?? 'nothing'}`);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/in`;
  });
  beforeEach(() => {
    handled = [];
    bytesRead = [];
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('hands the exact bytes to the handler, up to the limit itself, with or without Content-Length', async () => {
    const declared = await post(url, {}, Buffer.alloc(LIMIT, 0x61));
    const { response: chunked } = await streamChunked(url, LIMIT);
    expect([declared.status, declared.body]).toEqual([200, `read ${LIMIT}`]);
    expect([chunked.status, await chunked.text()]).toEqual([200, `read ${LIMIT}`]);
    expect(handled).toHaveLength(2);
    for (const seen of handled) {
      expect(seen.error).toBeUndefined();
      expect(seen.rawBody?.equals(Buffer.alloc(LIMIT, 0x61))).toBe(true);
    }
  });

  it('refuses a Content-Length over the limit at once, before a byte of the body is sent', async () => {
    const answer = await post(
      url,
      { 'content-length': LIMIT + 1, 'x-request-id': 'big-1' },
      null, // headers only: a capture that waited for the body would never answer
    );
    expect(answer.status).toBe(413);
    expect(answer.headers.connection).toBe('close');
    expect(answer.headers['content-type']).toContain('application/problem+json');
    expect(JSON.parse(answer.body)).toMatchObject({
      status: 413,
      code: 'ErrPayloadTooLarge',
      request_id: 'big-1',
      instance: '/hooks/in',
    });
    expect(handled).toEqual([]);
  });

  it('leaves a declared body over the limit unread while the client sends it, and still gets the 413 across', async () => {
    const response = await fetch(url, { method: 'POST', body: Buffer.alloc(64 * LIMIT) });
    expect(response.status).toBe(413);
    expect(response.headers.get('connection')).toBe('close');
    expect(await bytesRead[0]).toBeLessThan(LIMIT);
    expect(handled).toEqual([]);
  });

  it('stops reading a chunked body at the limit: 413, and the connection closes mid-body', async () => {
    const total = 256 * LIMIT;
    const { response, sent } = await streamChunked(url, total);
    expect(response.status).toBe(413);
    expect(response.headers.get('connection')).toBe('close');
    const problem = await response.text();
    expect(JSON.parse(problem)).toMatchObject({ code: 'ErrPayloadTooLarge' });
    expect(problem).toContain(String(LIMIT));
    expect(sent).toBeLessThan(total);
    expect(handled).toEqual([]);
    // What the server took off the wire: the limit, plus what was in flight when it stopped.
    expect(await bytesRead[0]).toBeLessThan(LIMIT + 4 * 64 * 1024);
  });

  it('leaves requests without a body to the handler, unread', async () => {
    const response = await fetch(url);
    expect(await response.text()).toBe('read nothing');
    expect(handled).toEqual([{ rawBody: undefined, rawBodyBytes: undefined, error: undefined }]);
  });

  it('answers under Express with the path the client asked for, and never calls the next middleware', async () => {
    const app = express();
    const reached: string[] = [];
    app.use('/api/v1', captureRawBody(LIMIT));
    app.use((req, res) => {
      reached.push(req.originalUrl);
      res.status(204).end();
    });
    const mounted = createServer(app);
    await new Promise<void>((resolve) => mounted.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(mounted.address() as AddressInfo).port}`;
      const small = await post(`${base}/api/v1/things?x=1`, {}, Buffer.from('{}'));
      const big = await post(`${base}/api/v1/things?x=1`, { 'content-length': 10 * LIMIT }, null);
      expect(small.status).toBe(204);
      expect(big.status).toBe(413);
      expect(JSON.parse(big.body)).toMatchObject({
        code: 'ErrPayloadTooLarge',
        instance: '/api/v1/things?x=1',
        request_id: big.headers['x-request-id'],
      });
      expect(big.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(reached).toEqual(['/api/v1/things?x=1']);
    } finally {
      mounted.closeAllConnections();
      await new Promise((resolve) => mounted.close(resolve));
    }
  });
});
