import { INTERNAL_TOKEN_HEADER, REQUEST_ID_HEADER, type ServiceName } from '@lib/contracts';
import { Agent, type AgentOptions, type ClientRequest, type IncomingMessage, request } from 'node:http';
import { INTERNAL_TOKEN_TTL_SECONDS, type InternalTokenCodec } from './internal-token';

/**
 * A service token is reused for half its life: every call still carries at least 30 s of validity,
 * which covers the call and its retries, and a busy caller signs twice a minute instead of once per
 * request (signing was a tenth of the webhook intake's cost per request).
 */
const TOKEN_REUSE_MS = (INTERNAL_TOKEN_TTL_SECONDS * 1000) / 2;

/** Internal answers are small JSON documents; anything longer is not the service's answer. */
const DEFAULT_MAX_ANSWER_BYTES = 1024 * 1024;

export interface InternalHttpOptions {
  /** The request id passed on in `x-request-id` (e.g. `currentRequestId`); none when unset. */
  requestId?: () => string | null | undefined;
  /** Longest answer read; a longer one fails the call. Default 1 MiB. */
  maxAnswerBytes?: number;
}

/** A call that went out, as it came back (any status: redirects are never followed). */
export interface InternalAnswer {
  status: number;
  /** The body parsed as JSON, or its text when it is not JSON. */
  data: unknown;
}

export interface InternalCallOptions {
  /**
   * Send the request again once when it went out on a kept-alive connection the service had just
   * closed (StaleConnection): the service never saw it. Reads do; a write only where the service
   * applies it once anyway.
   */
  resendOnStaleConnection?: boolean;
}

/**
 * Why a call failed: no answer in time (`timeout`), no connection or a broken one (`unreachable`,
 * `code` the socket error's), an answer too long (`too_long`), or an answer other than 2xx
 * (`status`, the answer in `response`). A token that could not be signed fails with the signer's
 * own error.
 */
export class InternalHttpError extends Error {
  constructor(
    message: string,
    readonly reason: 'timeout' | 'unreachable' | 'too_long' | 'status',
    readonly response?: InternalAnswer,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'InternalHttpError';
  }
}

/**
 * Calls another service's `/internal/...` routes as this service, with plain `node:http` (axios's
 * per-request configuration merging and adapter were about a seventh of the webhook intake's CPU
 * per request in `npm run bench:webhook`'s profile): the service token reused for half its life,
 * JSON in and out, a deadline on the whole exchange, connections kept alive (with the stale-socket
 * resend), redirects not followed (an internal route never redirects; following one would carry the
 * token elsewhere). Each client decides what a failure (InternalHttpError) means to its caller.
 */
export class InternalHttp {
  private readonly agent = keepAliveAgent();
  private readonly tokens: ServiceTokens;
  private readonly origin: { protocol: string; hostname: string; port: string };
  private readonly basePath: string;
  private readonly requestId: (() => string | null | undefined) | undefined;
  private readonly maxAnswerBytes: number;

  /** `target` is the service at `baseUrl`: the only one that accepts the tokens sent to it. */
  constructor(
    baseUrl: string,
    codec: InternalTokenCodec,
    private readonly target: ServiceName,
    private readonly timeoutMs: number,
    now: () => number = Date.now,
    options: InternalHttpOptions = {},
  ) {
    this.tokens = new ServiceTokens(codec, target, now);
    const url = new URL(baseUrl);
    // Parsed once: a call builds no URL. A base URL's path is kept (`http://billing/base` + route).
    this.origin = { protocol: url.protocol, hostname: url.hostname.replace(/^\[|\]$/g, ''), port: url.port };
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.requestId = options.requestId;
    this.maxAnswerBytes = options.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES;
  }

  /** The JSON answer of a 2xx, else InternalHttpError; sent again once on a stale connection. */
  async get<T>(path: string): Promise<T> {
    return ok<T>(await this.exchange('GET', path, undefined, { resendOnStaleConnection: true }), this.target);
  }

  /** `body` as JSON; the JSON answer of a 2xx, else InternalHttpError. */
  async post<T>(path: string, body: unknown, options: InternalCallOptions = {}): Promise<T> {
    return ok<T>(await this.exchange('POST', path, JSON.stringify(body), options), this.target);
  }

  /** One call whatever the answer's status, for callers that read other answers than 2xx themselves. */
  async exchange(
    method: 'GET' | 'POST',
    path: string,
    body: string | undefined,
    options: InternalCallOptions = {},
  ): Promise<InternalAnswer> {
    const token = await this.tokens.current();
    return sendOnceMoreIfStale(
      () => this.send(method, path, body, token),
      options.resendOnStaleConnection ?? false,
    );
  }

  private send(
    method: string,
    path: string,
    body: string | undefined,
    token: string,
  ): Promise<InternalAnswer> {
    const headers: Record<string, string | number> = {
      accept: 'application/json',
      [INTERNAL_TOKEN_HEADER]: token,
    };
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = Buffer.byteLength(body);
    }
    const requestId = this.requestId?.();
    if (requestId) headers[REQUEST_ID_HEADER] = requestId;
    return new Promise((resolve, reject) => {
      let timedOut = false;
      const fail = (error: Error): void => {
        clearTimeout(deadline);
        if (timedOut) {
          reject(
            new InternalHttpError(`${this.target} did not answer within ${this.timeoutMs} ms`, 'timeout'),
          );
        } else if (error instanceof InternalHttpError) {
          reject(error);
        } else {
          reject(connectionFailure(req, error, this.target));
        }
      };
      const req = request(
        { ...this.origin, method, path: `${this.basePath}${path}`, agent: this.agent, headers },
        (res) => {
          readAnswer(res, this.maxAnswerBytes, this.target).then((text) => {
            clearTimeout(deadline);
            resolve({ status: res.statusCode ?? 0, data: parseJson(text) });
          }, fail);
        },
      );
      const deadline = setTimeout(() => {
        timedOut = true;
        req.destroy();
      }, this.timeoutMs);
      req.once('error', fail);
      req.end(body);
    });
  }
}

/**
 * This service's internal token for its calls to `target`, signed again once it has been reused half
 * its life.
 */
export class ServiceTokens {
  private token: { value: Promise<string>; renewAt: number } | null = null;

  constructor(
    private readonly codec: InternalTokenCodec,
    private readonly target: ServiceName,
    private readonly now: () => number = Date.now,
  ) {}

  current(): Promise<string> {
    const now = this.now();
    if (!this.token || now >= this.token.renewAt) {
      const value = this.codec.sign({ kind: 'service', service: this.codec.service }, this.target);
      this.token = { value, renewAt: now + TOKEN_REUSE_MS };
      // A failed signature must not be served to the next caller.
      value.catch(() => {
        if (this.token?.value === value) this.token = null;
      });
    }
    return this.token.value;
  }
}

/** The agent of calls between services: connections kept alive (servers keep idle ones 65 s). */
export function keepAliveAgent(options: AgentOptions = {}): Agent {
  return new Agent({ keepAlive: true, ...options });
}

/**
 * The request went out on a kept-alive connection the service closed as idle just as it was sent:
 * the service never saw it (nodejs/node#43456). `cause` is the socket's error.
 */
export class StaleConnection extends Error {
  constructor(override readonly cause: Error) {
    super(cause.message);
    this.name = 'StaleConnection';
  }

  /** `error` as a request's `error` event gave it: a StaleConnection when it is that race. */
  static of(request: ClientRequest, error: Error): Error {
    const stale = request.reusedSocket && (error as NodeJS.ErrnoException).code === 'ECONNRESET';
    return stale ? new StaleConnection(error) : error;
  }
}

/** Runs `send`, and once more when it failed with StaleConnection and `resend` allows it. */
export async function sendOnceMoreIfStale<T>(send: () => Promise<T>, resend: boolean): Promise<T> {
  try {
    return await send();
  } catch (error) {
    if (!resend || !isStale(error)) throw error;
    return send();
  }
}

function isStale(error: unknown): boolean {
  return (
    error instanceof StaleConnection ||
    (error instanceof InternalHttpError && error.cause instanceof StaleConnection)
  );
}

function connectionFailure(req: ClientRequest, error: Error, target: ServiceName): InternalHttpError {
  const code = (error as NodeJS.ErrnoException).code;
  const failure = new InternalHttpError(
    `${target} did not answer (${code ?? error.message})`,
    'unreachable',
    undefined,
    code,
  );
  failure.cause = StaleConnection.of(req, error);
  return failure;
}

function ok<T>(answer: InternalAnswer, target: ServiceName): T {
  if (answer.status >= 200 && answer.status < 300) return answer.data as T;
  throw new InternalHttpError(`${target} answered ${answer.status}`, 'status', answer);
}

function readAnswer(res: IncomingMessage, maxBytes: number, target: ServiceName): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        res.destroy(new InternalHttpError(`${target} answered more than ${maxBytes / 1024} KiB`, 'too_long'));
      } else {
        chunks.push(chunk);
      }
    });
    res.once('error', reject);
    res.once('end', () => resolve(Buffer.concat(chunks, size).toString('utf8')));
  });
}

function parseJson(text: string): unknown {
  if (text === '') return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
