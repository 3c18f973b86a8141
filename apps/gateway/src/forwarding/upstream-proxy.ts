import { Inject, Injectable, Logger } from '@nestjs/common';
import { INTERNAL_TOKEN_HEADER, REQUEST_ID_HEADER } from '@lib/contracts';
import { InternalTokenCodec, keepAliveAgent, sendOnceMoreIfStale, StaleConnection } from '@lib/identity';
import { CommonErrors, DomainError } from '@lib/problem-details';
import { GatewayErrors } from '../gateway.errors';
import { isOriginForm, type RawBodyRequest, TtlCache } from '@lib/runtime';
import type { Request, Response } from 'express';
import { type IncomingHttpHeaders, type OutgoingHttpHeaders, request } from 'node:http';
import { Histogram } from 'prom-client';
import type { Session } from '../auth/sessions';
import type { Upstream } from './upstream-routes';

export const UPSTREAMS = Symbol('UPSTREAMS');
export interface UpstreamOptions {
  urls: Record<Upstream, string>;
  timeoutMs: number;
}

const upstreamSeconds = new Histogram({
  name: 'gateway_upstream_duration_seconds',
  help: 'Forwarded requests by upstream service and status class',
  labelNames: ['upstream', 'status'],
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
});

/** Never forwarded: hop-by-hop headers, and every credential or identity a client could send. */
const DROPPED_REQUEST_HEADERS = new Set([
  'connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
  'cookie',
  'authorization',
  INTERNAL_TOKEN_HEADER,
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-real-ip',
]);
const DROPPED_RESPONSE_HEADERS = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'set-cookie',
  'x-powered-by',
]);

/**
 * Forwards a public request to the service that owns it, as the logged-in user: the client's own
 * identity and credential headers are dropped and replaced by a short-lived internal token for the
 * session. The body goes as the bytes received (read once by the raw-body capture, never parsed);
 * the answer streams back as the service gave it.
 */
@Injectable()
export class UpstreamProxy {
  private readonly logger = new Logger(UpstreamProxy.name);
  private readonly agent = keepAliveAgent({ maxSockets: 256 });
  /** A user's token is reused for half its 60 s life, like a service's (InternalHttp). */
  private readonly tokens = new TtlCache<string>(30_000);

  constructor(
    private readonly codec: InternalTokenCodec,
    @Inject(UPSTREAMS) private readonly options: UpstreamOptions,
  ) {}

  async forward(
    req: RawBodyRequest & Request,
    res: Response,
    upstream: Upstream,
    session: Session,
  ): Promise<void> {
    // Addressed to the one service that owns the route: no other service accepts it.
    const token = await this.tokens.get(`${session.session_id}:${upstream}`, () =>
      this.codec.sign(
        {
          kind: 'user',
          user_id: session.user_id,
          platform_user_id: session.platform_user_id,
          session_id: session.session_id,
        },
        upstream,
      ),
    );
    const body = req.rawBody;
    const headers = forwardedHeaders(req.headers);
    headers[INTERNAL_TOKEN_HEADER] = token;
    if (typeof req.id === 'string' || typeof req.id === 'number') headers[REQUEST_ID_HEADER] = String(req.id);
    headers['x-forwarded-for'] = req.ip ?? '';
    headers['x-forwarded-proto'] = req.protocol;
    if (body) headers['content-length'] = body.length;

    const url = upstreamUrl(this.options.urls[upstream], req.originalUrl);
    const exchange = { url, method: req.method, headers, body, res, upstream };
    // A request that met a kept-alive connection the service had just closed (StaleConnection): the
    // service never saw it. Sent again once, where that is safe.
    await sendOnceMoreIfStale(() => this.send(exchange), IDEMPOTENT_METHODS.has(req.method)).catch(
      (error: unknown) => {
        throw this.unavailable(upstream, error instanceof StaleConnection ? error.cause : (error as Error));
      },
    );
  }

  private send(exchange: {
    url: URL;
    method: string;
    headers: OutgoingHttpHeaders;
    body: Buffer | undefined;
    res: Response;
    upstream: Upstream;
  }): Promise<void> {
    const { url, method, headers, body, res, upstream } = exchange;
    const started = process.hrtime.bigint();
    return new Promise<void>((resolve, reject) => {
      const outgoing = request(
        url,
        { method, headers, agent: this.agent, timeout: this.options.timeoutMs },
        (answer) => {
          res.status(answer.statusCode ?? 502);
          for (const [name, value] of Object.entries(answer.headers)) {
            if (value !== undefined && !DROPPED_RESPONSE_HEADERS.has(name)) res.setHeader(name, value);
          }
          answer.pipe(res);
          answer.once('end', () => {
            upstreamSeconds.observe(
              { upstream, status: `${Math.floor((answer.statusCode ?? 0) / 100)}xx` },
              Number(process.hrtime.bigint() - started) / 1e9,
            );
            resolve();
          });
          answer.once('error', reject);
        },
      );
      outgoing.once('timeout', () => outgoing.destroy(new UpstreamTimeout()));
      outgoing.once('error', (error: NodeJS.ErrnoException) => {
        if (res.headersSent) {
          // Mid-answer: nothing better to do than cut the connection the client is reading.
          res.destroy(error);
          resolve();
          return;
        }
        reject(StaleConnection.of(outgoing, error));
      });
      outgoing.end(body);
    });
  }

  private unavailable(upstream: Upstream, error: Error): DomainError {
    upstreamSeconds.observe({ upstream, status: 'error' }, 0);
    if (error instanceof UpstreamTimeout) {
      return GatewayErrors.upstreamTimeout(`The ${upstream} service did not answer in time.`);
    }
    this.logger.warn({ upstream, err: error.message }, 'upstream unreachable');
    return GatewayErrors.serviceUnavailable(
      `The ${upstream} service cannot be reached right now. Try again in a moment.`,
    );
  }
}

/**
 * Where a request for `target` (the request line's path and query) goes at the upstream `base`: the
 * upstream's own origin, its base path, then the target. Built by hand, not `new URL(target, base)`,
 * which takes an absolute-form target (`http://elsewhere/...`) as the whole URL; and checked after,
 * so nothing but the upstream's origin is ever sent the user's token.
 */
export function upstreamUrl(base: string, target: string): URL {
  if (!isOriginForm(target)) throw new InvalidRequestTarget();
  const upstream = new URL(base);
  const url = new URL(`${upstream.origin}${upstream.pathname.replace(/\/$/, '')}${target}`);
  if (url.origin !== upstream.origin) throw new InvalidRequestTarget();
  return url;
}

/** A request target that is not a path (absolute or authority form): answered 400 at the edge. */
export class InvalidRequestTarget extends DomainError {
  constructor() {
    super(CommonErrors.badRequest, 'The request target must be a path starting with "/".');
  }
}

/** Methods a client may repeat without changing the outcome (RFC 9110 §9.2.2). */
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

class UpstreamTimeout extends Error {
  constructor() {
    super('upstream timed out');
  }
}

function forwardedHeaders(incoming: IncomingHttpHeaders): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(incoming)) {
    if (value !== undefined && !DROPPED_REQUEST_HEADERS.has(name) && !name.startsWith('x-identity')) {
      headers[name] = value;
    }
  }
  return headers;
}
