import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** What a spec's stand-in service does with one request: its body read, and its number on its connection. */
export type ScriptedAnswer = (
  req: IncomingMessage,
  body: string,
  res: ServerResponse,
  nthOnSocket: number,
) => void;

/** Answers with `body` as JSON. */
export function answerJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

export interface ScriptedUpstream {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** Closes the server and its keep-alive connections. */
  close(): Promise<void>;
}

/**
 * A stand-in for the service a client under test calls, on a free loopback port: each request's
 * body is read, and the request is numbered on its connection (1 for a fresh one), so a spec can
 * see keep-alive reuse and answer as the test in hand needs.
 */
export async function scriptedUpstream(answer: ScriptedAnswer): Promise<ScriptedUpstream> {
  const requestsPerSocket = new WeakMap<Socket, number>();
  const server = createServer((req, res) => {
    const nth = (requestsPerSocket.get(req.socket) ?? 0) + 1;
    requestsPerSocket.set(req.socket, nth);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => answer(req, Buffer.concat(chunks).toString('utf8'), res, nth));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * For the describe block that calls it: a scripted upstream up before its tests and closed after
 * them. Returns its URL, once it is up.
 */
export function scriptedUpstreamForSuite(answer: ScriptedAnswer): () => string {
  let upstream: ScriptedUpstream | undefined;
  beforeAll(async () => {
    upstream = await scriptedUpstream(answer);
  });
  afterAll(() => upstream?.close());
  return () => upstream!.url;
}

/** `http://127.0.0.1:<port>` of a port that was free a moment ago and has no listener: a service that is down. */
export async function unreachableUrl(): Promise<string> {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const { port } = closed.address() as AddressInfo;
  await new Promise((resolve) => closed.close(resolve));
  return `http://127.0.0.1:${port}`;
}
