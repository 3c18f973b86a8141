import type { NextFunction, Request, Response } from 'express';
import type { IncomingMessage } from 'node:http';
import { isDeferredBody, JSON_MEDIA_TYPE, mediaTypeOf } from './deferred-body';

/** Deeper than any body of this API; class-transformer recurses per level and overflows near 1,300. */
export const MAX_JSON_DEPTH = 64;

/** NUL, or half of a surrogate pair: text Postgres refuses to store (text and jsonb alike). */
// eslint-disable-next-line no-control-regex -- NUL is exactly what this pattern is for.
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Why a parsed JSON value cannot be taken as it is, or null: nesting deeper than `maxDepth`, or a
 * string (or key) holding what Postgres cannot store. Walks the value without recursion.
 */
export function jsonValueProblem(value: unknown, maxDepth = MAX_JSON_DEPTH): string | null {
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [current, depth] = pending.pop()!;
    if (typeof current === 'string') {
      if (UNSTORABLE.test(current)) return 'text must not contain NUL characters or unpaired surrogates';
      continue;
    }
    if (typeof current !== 'object' || current === null) continue;
    if (depth >= maxDepth) return `JSON must not nest deeper than ${maxDepth} levels`;
    for (const [key, child] of Object.entries(current)) {
      if (UNSTORABLE.test(key)) return 'text must not contain NUL characters or unpaired surrogates';
      pending.push([child, depth + 1]);
    }
  }
  return null;
}

/** A media type as RFC 9110 writes one (`type/subtype`), safe to name back to the client. */
const MEDIA_TYPE = /^[a-z0-9!#$&^_.+-]{1,60}\/[a-z0-9!#$&^_.+-]{1,60}$/;

/**
 * A refusal of the request's body, shaped as body-parser's own errors are (an HTTP status, a
 * `type`, a message safe to show), so the problem filter answers it as it answers theirs.
 */
function bodyRefusal(status: number, type: string, message: string): Error {
  return Object.assign(new Error(message), { status, expose: true, type });
}

/** Whether the request carries a body at all (an empty one does not count). */
function hasBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

/**
 * Right after the JSON parser, as an error handler: its parse error is a SyntaxError, which Nest
 * turns into a plain 400 with the parser's own words before the problem filter sees it. Passed on
 * as an error of reading the body instead, the filter answers it as one ("not valid JSON").
 */
export function explainUnparsableJson(
  error: { type?: unknown; message?: unknown },
  _req: Request,
  _res: Response,
  next: NextFunction,
): void {
  if (error?.type !== 'entity.parse.failed') return next(error);
  next(bodyRefusal(400, 'entity.parse.failed', String(error.message)));
}

/**
 * After the JSON parser: the body, when there is one, must be a JSON object the service can take.
 * A body the parser did not read (another media type: text, a form) is refused 415 naming
 * `application/json`, rather than validated as if it were missing; a body that is JSON but not an
 * object (`null`, a number, an array), is nested too deep or holds unstorable text is refused 400
 * before validation (whose recursion would overflow) or the database (which would refuse the text)
 * sees it. A body a handler reads itself (`deferBody`, the raw-body routes) is its business.
 */
export function guardJsonBody(req: Request, _res: Response, next: NextFunction): void {
  const body: unknown = req.body;
  if (body === undefined) {
    if (!hasBody(req) || isDeferredBody(req)) return next();
    const mediaType = mediaTypeOf(req);
    const sent = MEDIA_TYPE.test(mediaType)
      ? `, not ${mediaType}`
      : mediaType
        ? ''
        : ', and this one names none';
    return next(
      bodyRefusal(
        415,
        'media.type.unsupported',
        `The request body must be JSON, sent with Content-Type: ${JSON_MEDIA_TYPE}${sent}.`,
      ),
    );
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return next(bodyRefusal(400, 'entity.verify.failed', 'The request body must be a JSON object.'));
  }
  const problem = jsonValueProblem(body);
  next(problem ? bodyRefusal(400, 'entity.verify.failed', problem) : undefined);
}
