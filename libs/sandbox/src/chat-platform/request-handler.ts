import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BotAccounts } from './bot-accounts';
import type { BoundedLog } from './bounded-log';
import { CDN_PATH, cdnAsset, cdnRoute } from './cdn';
import type { ExpressionImage } from './expression-images';
import { BOT_ONLY, type Caller, admits, identifyCaller } from './caller';
import type { FailureInjector } from './failure-injector';
import type { ChangeCause } from './guild-activity';
import type { GuildChange } from './guild-change';
import { AUTHORIZE_PAGE_PATH, type PageResponse, authorizePage } from './oauth-authorize-page';
import { OAuthError } from './oauth-error';
import { PlatformHttpError, platformError } from './platform-error';
import type { RequestRecord } from './platform-state';
import type { PlatformStore } from './platform-store';
import { type PlatformRateLimits, resourceLimitOf } from './rate-limiter';
import { decodePath, readBodyUpTo } from '../request-reading';
import { type RouteMatch, type Router } from './router';
import type { PlatformRoute } from './routes';
import type { MultipartBody } from './routes/platform-route';

const API_PREFIX = '/api/v10';
const MAX_BODY_BYTES = 1024 * 1024;

export interface RequestHandlerContext {
  bots: BotAccounts;
  store: PlatformStore;
  router: Router<PlatformRoute>;
  rateLimits: PlatformRateLimits;
  failures: FailureInjector;
  requests: BoundedLog<RequestRecord>;
  /** Aborted when the server stops, to cut short answers held by an injected delay. */
  stopping: AbortSignal;
  /** Records what a request changed in guilds: audit-log entries and gateway events. */
  publish(changes: GuildChange[], cause: ChangeCause): void;
}

type PlatformRouteMatch = RouteMatch<PlatformRoute> | 'method-not-allowed' | undefined;

interface Answer {
  status: number;
  headers: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as plain text instead (the authorize page's errors). */
  text?: string;
  /** Sent as they are instead, with their content type (the CDN's images). */
  bytes?: ExpressionImage;
}

function errorAnswer(error: PlatformHttpError | OAuthError, headers: Record<string, string> = {}): Answer {
  return { status: error.status, headers, body: error.body() };
}

/** Only a form body has fields; any other body reads as none. */
function parseForm(req: IncomingMessage, raw: Buffer): URLSearchParams {
  const mediaType = req.headers['content-type']?.split(';')[0].trim().toLowerCase();
  return new URLSearchParams(mediaType === 'application/x-www-form-urlencoded' ? raw.toString('utf8') : '');
}

/**
 * Only a `multipart/form-data` body has parts; any other body, or one that does not parse, reads as
 * none (the route then finds its required fields missing).
 */
async function parseMultipart(req: IncomingMessage, raw: Buffer): Promise<MultipartBody> {
  const body: MultipartBody = { fields: new Map(), files: new Map() };
  const contentType = req.headers['content-type'] ?? '';
  if (!/^multipart\/form-data\s*;/i.test(contentType)) return body;
  let form: FormData;
  try {
    form = await new Response(raw, { headers: { 'content-type': contentType } }).formData();
  } catch {
    return body;
  }
  for (const [name, value] of form) {
    if (typeof value === 'string') {
      body.fields.set(name, value);
    } else {
      const bytes = Buffer.from(await value.arrayBuffer());
      body.files.set(name, { bytes, filename: value.name, contentType: value.type });
    }
  }
  return body;
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

/** The next injected failure for the request, once its delay has passed. */
async function injectedFailure(method: string, path: string, context: RequestHandlerContext) {
  const failure = context.failures.take(method, path);
  if (failure && failure.delayMs > 0) {
    await sleep(failure.delayMs, undefined, { signal: context.stopping }).catch(() => {});
  }
  return failure;
}

/** Whose permissions a request uses: its token's account; the fake's own bot for anyone else. */
function actorOf(caller: Caller, store: PlatformStore): string {
  return caller.kind === 'anonymous' ? store.bot.id : caller.userId;
}

/**
 * One API request through the platform's layers, in its order: authentication, injected failures
 * (they stand for trouble in front of the API), the global and per-route rate limits, then the
 * endpoint (a request past a resource limit, such as a channel's name edits or a guild's role
 * creations, is answered 429 instead; only a success counts against it), and what it changed goes
 * to the audit logs and the gateway. The rate-limit headers go
 * on every answer of a limited route, errors included. The limits are the fake's own bot's
 * buckets: another bot's token, a user's token and the token endpoint have buckets of their own on
 * the platform, which the fake does not model.
 */
async function answer(
  req: IncomingMessage,
  method: string,
  path: string,
  query: URLSearchParams,
  match: PlatformRouteMatch,
  context: RequestHandlerContext,
): Promise<Answer> {
  const raw = await readBodyUpTo(req, MAX_BODY_BYTES, () => platformError.requestTooLarge());
  const now = Date.now();
  const { store } = context;
  const caller = identifyCaller(req.headers.authorization, context.bots, store.oauth, now);
  // A path no route serves still wants the bot's token first, as the fake has always answered.
  const access = typeof match === 'object' ? (match.route.access ?? BOT_ONLY) : BOT_ONLY;
  if (!admits(access, caller)) return errorAnswer(platformError.unauthorized());
  const failure = await injectedFailure(method, path, context);
  if (failure) return failure;
  if (match === undefined) return errorAnswer(platformError.notFound());
  if (match === 'method-not-allowed') return errorAnswer(platformError.methodNotAllowed());
  const limited = caller.kind === 'bot' && caller.userId === store.bot.id;
  const verdict = limited ? context.rateLimits.check(match.bucket, now) : { headers: {} };
  if (verdict.rejection) return { status: 429, headers: verdict.headers, body: verdict.rejection };
  try {
    const format = match.route.bodyFormat;
    const body =
      format === 'form'
        ? parseForm(req, raw)
        : format === 'multipart'
          ? await parseMultipart(req, raw)
          : parseJson(raw);
    const resource = limited ? resourceLimitOf(method, match.route.path, match.params, body) : undefined;
    const over = resource && context.rateLimits.checkResource(resource, verdict.headers, now);
    if (over?.rejection) return { status: 429, headers: over.headers, body: over.rejection };
    const actorId = actorOf(caller, store);
    const reason = auditLogReason(req);
    const request = { params: match.params, query, body, caller, actorId, auditLogReason: reason };
    const response = match.route.handle(request, store);
    if (response.changes?.length) context.publish(response.changes, { actorId, reason });
    if (resource && response.status < 300) context.rateLimits.count(resource, now);
    return { status: response.status, headers: verdict.headers, body: response.body };
  } catch (error) {
    if (error instanceof PlatformHttpError || error instanceof OAuthError) {
      return errorAnswer(error, verdict.headers);
    }
    throw error;
  }
}

/**
 * A request for the platform's site outside the API: only the OAuth2 consent page is served. No
 * Authorization there (the browser's session is the fake's signed-in user); failures may be
 * injected under its path.
 */
async function answerPage(
  method: string,
  pathname: string,
  query: URLSearchParams,
  context: RequestHandlerContext,
): Promise<Answer> {
  if (pathname !== AUTHORIZE_PAGE_PATH) return errorAnswer(platformError.notFound());
  const failure = await injectedFailure(method, pathname, context);
  if (failure) return failure;
  if (method !== 'GET') return errorAnswer(platformError.methodNotAllowed());
  return pageAnswer(authorizePage(query, context.store, Date.now()));
}

/**
 * A request for the CDN's host, served under `CDN_PATH`: an emoji's, sticker's, guild's or role's image. No
 * Authorization (the CDN takes none); failures may be injected under its paths.
 */
async function answerCdn(
  method: string,
  pathname: string,
  query: URLSearchParams,
  context: RequestHandlerContext,
): Promise<Answer> {
  const failure = await injectedFailure(method, pathname, context);
  if (failure) return failure;
  // HEAD too, as any HTTP server: Node's server leaves the body out of its answer.
  if (method !== 'GET' && method !== 'HEAD') return errorAnswer(platformError.methodNotAllowed());
  return { status: 200, headers: {}, bytes: cdnAsset(pathname, context.store, query) };
}

function pageAnswer(page: PageResponse): Answer {
  return page.status === 302
    ? { status: 302, headers: { Location: page.location } }
    : { status: page.status, headers: {}, text: page.text };
}

function send(res: ServerResponse, { status, headers, body, text, bytes }: Answer): void {
  if (res.destroyed) return;
  if (bytes !== undefined) {
    res.writeHead(status, {
      ...headers,
      'Content-Type': bytes.contentType,
      'Content-Length': bytes.bytes.length,
    });
    res.end(bytes.bytes);
    return;
  }
  if (text !== undefined) {
    res.writeHead(status, { ...headers, 'Content-Type': 'text/plain; charset=utf-8' });
    res.end(text);
    return;
  }
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
  const target = req.url ?? '/';
  const queryStart = target.indexOf('?');
  const pathname = decodePath(queryStart < 0 ? target : target.slice(0, queryStart));
  const query = new URLSearchParams(queryStart < 0 ? '' : target.slice(queryStart + 1));
  const path = pathname.startsWith(`${API_PREFIX}/`) ? pathname.slice(API_PREFIX.length) : null;
  const match = path === null ? undefined : context.router.match(method, path);
  const cdn = path === null && pathname.startsWith(`${CDN_PATH}/`);
  let result: Answer;
  try {
    if (cdn) result = await answerCdn(method, pathname, query, context);
    else if (path === null) result = await answerPage(method, pathname, query, context);
    else result = await answer(req, method, path, query, match, context);
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
  let route: string | null = null;
  if (typeof match === 'object') route = match.route.path;
  else if (pathname === AUTHORIZE_PAGE_PATH) route = AUTHORIZE_PAGE_PATH;
  else if (cdn) route = cdnRoute(pathname) ?? null;
  context.requests.push({
    method,
    path: path ?? pathname,
    route,
    status: result.status,
    at: Date.now(),
    auditLogReason: auditLogReason(req),
  });
}
