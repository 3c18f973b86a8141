import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BoundedLog } from './bounded-log';
import type { FailureInjector } from './failure-injector';
import { PlatformHttpError, platformError } from './platform-error';
import type { RequestRecord } from './platform-state';
import type { PlatformStore } from './platform-store';
import type { PlatformRateLimits } from './rate-limiter';
import { type RouteMatch, type Router, decodePath } from './router';
import type { PlatformRoute } from './routes';

const API_PREFIX = '/api/v10';
const MAX_BODY_BYTES = 1024 * 1024;

export interface RequestHandlerContext {
  botToken: string;
  store: PlatformStore;
  router: Router<PlatformRoute>;
  rateLimits: PlatformRateLimits;
  failures: FailureInjector;
  requests: BoundedLog<RequestRecord>;
  /** Aborted when the server stops, to cut short answers held by an injected delay. */
  stopping: AbortSignal;
}

type PlatformRouteMatch = RouteMatch<PlatformRoute> | 'method-not-allowed' | undefined;

interface Answer {
  status: number;
  headers: Record<string, string>;
  body?: unknown;
}

function errorAnswer(error: PlatformHttpError, headers: Record<string, string> = {}): Answer {
  return { status: error.status, headers, body: error.body() };
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw platformError.requestTooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function parseJson(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw platformError.invalidJson();
  }
}

function auditLogReason(req: IncomingMessage): string | null {
  const header = req.headers['x-audit-log-reason'];
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined) return null;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * One request through the platform's layers, in its order: authentication, injected failures
 * (they stand for trouble in front of the API), the global and per-route rate limits, then the
 * endpoint. The rate-limit headers go on every answer of a limited route, errors included.
 */
async function answer(
  req: IncomingMessage,
  method: string,
  path: string | null,
  match: PlatformRouteMatch,
  context: RequestHandlerContext,
): Promise<Answer> {
  if (path === null) return errorAnswer(platformError.notFound());
  const raw = await readBody(req);
  if (req.headers.authorization !== `Bot ${context.botToken}`) {
    return errorAnswer(platformError.unauthorized());
  }
  const failure = context.failures.take(method, path);
  if (failure) {
    if (failure.delayMs > 0) {
      await sleep(failure.delayMs, undefined, { signal: context.stopping }).catch(() => {});
    }
    return failure;
  }
  if (match === undefined) return errorAnswer(platformError.notFound());
  if (match === 'method-not-allowed') return errorAnswer(platformError.methodNotAllowed());
  const verdict = context.rateLimits.check(match.bucket, Date.now());
  if (verdict.rejection) return { status: 429, headers: verdict.headers, body: verdict.rejection };
  try {
    const response = match.route.handle({ params: match.params, body: parseJson(raw) }, context.store);
    return { status: response.status, headers: verdict.headers, body: response.body };
  } catch (error) {
    if (error instanceof PlatformHttpError) return errorAnswer(error, verdict.headers);
    throw error;
  }
}

function send(res: ServerResponse, { status, headers, body }: Answer): void {
  if (res.destroyed) return;
  const json = body === undefined ? undefined : JSON.stringify(body);
  res.writeHead(status, json === undefined ? headers : { ...headers, 'Content-Type': 'application/json' });
  res.end(json);
}

/** Serves one HTTP request in the platform's wire format and records it. Never rejects. */
export async function handlePlatformRequest(
  req: IncomingMessage,
  res: ServerResponse,
  context: RequestHandlerContext,
): Promise<void> {
  const method = (req.method ?? 'GET').toUpperCase();
  const pathname = decodePath((req.url ?? '/').split('?')[0]);
  const path = pathname.startsWith(`${API_PREFIX}/`) ? pathname.slice(API_PREFIX.length) : null;
  const match = path === null ? undefined : context.router.match(method, path);
  let result: Answer;
  try {
    result = await answer(req, method, path, match, context);
  } catch (error) {
    if (error instanceof PlatformHttpError) {
      result = errorAnswer(error);
    } else {
      // A bug in the fake: say so loudly rather than let the client retry a 500 silently.
      const detail = error instanceof Error ? error.stack : String(error);
      process.stderr.write(`fake chat platform failed on ${method} ${pathname}: ${detail}\n`);
      result = { status: 500, headers: {}, body: { message: '500: Internal Server Error', code: 0 } };
    }
  }
  send(res, result);
  context.requests.push({
    method,
    path: path ?? pathname,
    route: typeof match === 'object' ? match.route.path : null,
    status: result.status,
    at: Date.now(),
    auditLogReason: auditLogReason(req),
  });
}
