import { CommonErrors, redactUrl, sendProblem, toProblem } from '@lib/problem-details';
import {
  captureRawBody,
  closeWithoutReading,
  deferBody,
  type RawBodyRequest,
  requestIdFor,
} from '@lib/runtime';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Bodies the gateway forwards as received; the services apply their own (equal) 1 MiB limit. */
export const FORWARDED_BODY_LIMIT = 1024 * 1024;
const capture = captureRawBody(FORWARDED_BODY_LIMIT);

/** The methods whose operations take a body; any other method's body has no meaning here. */
const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

/**
 * Middleware on the forwarded prefixes: tells the body parsers behind it that the body is taken
 * care of, without reading a byte of it. The forwarder reads it (`readForwardedBody`) once the
 * session is checked, so a caller who is not logged in never has their body read at all. A body on
 * a GET, HEAD, DELETE or OPTIONS is refused at once (400) rather than silently dropped: no
 * operation here takes one, and a client sending one has misunderstood the call.
 */
export function deferForwardedBody(req: IncomingMessage, res: ServerResponse, next: () => void): void {
  if (!METHODS_WITH_BODY.has(req.method ?? '') && hasBody(req)) {
    closeWithoutReading(req, res);
    const error = CommonErrors.badRequest(`A ${req.method} request takes no body here; send it without one.`);
    sendProblem(res, toProblem(error, requestIdFor(req, res), redactUrl(req.url ?? '/')));
    return;
  }
  deferBody(req);
  next();
}

/** RFC 9112 §6.3: a request has a body when it says how long one is (over zero) or that it is chunked. */
function hasBody(req: IncomingMessage): boolean {
  return Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
}

/**
 * The forwarded request's body, read now up to the limit (the raw-body capture). False when the
 * capture refused it and has answered the client itself (413).
 */
export function readForwardedBody(req: RawBodyRequest, res: ServerResponse): Promise<boolean> {
  return new Promise((resolve, reject) => {
    res.once('close', () => resolve(false));
    capture(req, res, (error?: unknown) =>
      error ? reject(new Error('reading the request body failed', { cause: error })) : resolve(true),
    );
  });
}
