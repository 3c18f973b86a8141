import { createServer, type IncomingMessage, request as httpRequest } from 'node:http';
import { closeAtOnce, listenOnLoopback } from '../../../libs/sandbox/src/loopback-server';

/** One request that went through the proxy, and the platform's answer to it. */
export interface Exchange {
  method: string;
  /** After `/api/v10`, without the query; an interaction webhook's token reads `{webhook_token}`. */
  path: string;
  /** The JSON body, or a form body's fields; undefined when there was none. */
  requestBody: unknown;
  status: number;
  /** The answer's JSON body, exactly as sent; undefined when there was none. */
  responseBody: unknown;
}

const API_PREFIX = '/api/v10';

/**
 * A loopback HTTP proxy in front of the fake platform that passes every request and answer
 * through unchanged (headers included, so rate limits work as they do without it) and keeps a copy
 * of both: the product's real request bodies and the platform's raw answers, as they crossed the wire.
 * `rewrite` may change an answer's JSON body before it reaches the client (the suite's self-test).
 */
export class RecordingProxy {
  readonly exchanges: Exchange[] = [];
  rewrite?: (exchange: Exchange) => unknown;
  private readonly server = createServer((req, res) => {
    void this.forward(req).then(
      ({ status, headers, body }) => res.writeHead(status, headers).end(body),
      (error: Error) => res.writeHead(502).end(error.message),
    );
  });
  private baseUrl?: string;

  constructor(private readonly upstream: string) {}

  /** The proxy's address, without `/api`. */
  get url(): string {
    if (!this.baseUrl) throw new Error('the recording proxy has not started');
    return this.baseUrl;
  }

  async start(): Promise<void> {
    this.baseUrl = await listenOnLoopback(this.server, '127.0.0.1', 0);
  }

  stop(): Promise<void> {
    return closeAtOnce(this.server);
  }

  private async forward(req: IncomingMessage) {
    const requestBytes = await readAll(req);
    const target = new URL(req.url ?? '/', this.upstream);
    const answer = await new Promise<{ status: number; headers: IncomingMessage['headers']; bytes: Buffer }>(
      (resolve, reject) => {
        const upstream = httpRequest(
          target,
          { method: req.method, headers: { ...req.headers, host: target.host } },
          (res) => {
            readAll(res).then(
              (bytes) => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes }),
              reject,
            );
          },
        );
        upstream.on('error', reject);
        upstream.end(requestBytes);
      },
    );
    // The REST client escapes `@` in `/users/@me`.
    const path = decodeURI(target.pathname).replaceAll('%40', '@');
    const exchange: Exchange = {
      method: req.method ?? 'GET',
      path: withoutToken(path.startsWith(API_PREFIX) ? path.slice(API_PREFIX.length) : path),
      requestBody: parseBody(requestBytes, req.headers['content-type']),
      status: answer.status,
      responseBody: parseBody(answer.bytes, answer.headers['content-type']),
    };
    this.exchanges.push(exchange);
    let body = answer.bytes;
    const headers = { ...answer.headers };
    if (this.rewrite && exchange.responseBody !== undefined) {
      body = Buffer.from(JSON.stringify(this.rewrite(structuredClone(exchange))));
      exchange.responseBody = JSON.parse(body.toString()) as unknown;
      delete headers['transfer-encoding'];
      headers['content-length'] = String(body.length);
    }
    return { status: answer.status, headers, body };
  }
}

/** The path with an interaction webhook's token (a credential) out of it, so no failure shows it. */
function withoutToken(path: string): string {
  return path.replace(/^(\/webhooks\/[^/]+\/)[^/]+/, '$1{webhook_token}');
}

function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

function parseBody(bytes: Buffer, contentType: string | undefined): unknown {
  if (bytes.length === 0) return undefined;
  if (contentType?.startsWith('application/x-www-form-urlencoded')) {
    return Object.fromEntries(new URLSearchParams(bytes.toString()));
  }
  if (contentType?.startsWith('application/json')) return JSON.parse(bytes.toString()) as unknown;
  const boundary = /^multipart\/form-data;.*boundary="?([^";]+)"?/.exec(contentType ?? '')?.[1];
  if (boundary) return multipartFields(bytes.toString('latin1'), boundary);
  return bytes.toString();
}

/**
 * A multipart body read back into its fields: a text field as its value, a file part as the
 * string `binary` (the OpenAPI document's `format: binary`), so the schema check reads it as JSON.
 */
function multipartFields(body: string, boundary: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const part of body.split(`--${boundary}`).slice(1, -1)) {
    const headerEnd = part.indexOf('\r\n\r\n');
    const headers = part.slice(0, headerEnd);
    const name = /name="([^"]*)"/.exec(headers)?.[1];
    if (name === undefined) continue;
    const value = part.slice(headerEnd + 4, part.length - 2);
    fields[name] = /filename="/.test(headers) ? 'binary' : Buffer.from(value, 'latin1').toString('utf8');
  }
  return fields;
}
