import type { IncomingMessage } from 'node:http';

const DEFERRED = Symbol('body read by the handler');

/** The one media type the services read bodies in. */
export const JSON_MEDIA_TYPE = 'application/json';

/**
 * Marks a request whose body its handler reads itself, later (the gateway reads a forwarded body
 * only after the session check): the JSON parser leaves it unread.
 */
export function deferBody(req: IncomingMessage): void {
  (req as IncomingMessage & { [DEFERRED]?: true })[DEFERRED] = true;
}

/** Whether a handler reads this request's body itself (`deferBody`). */
export function isDeferredBody(req: IncomingMessage): boolean {
  return (req as IncomingMessage & { [DEFERRED]?: true })[DEFERRED] === true;
}

/** The request's media type, lower case and without parameters; '' when it names none. */
export function mediaTypeOf(req: IncomingMessage): string {
  return (req.headers['content-type'] ?? '').split(';', 1)[0].trim().toLowerCase();
}

/**
 * The JSON parser's `type` test: `application/json` bodies (the parser's default), except those a
 * handler reads itself. Body-parser 2 skips only bodies already read, so a deferred body must be
 * kept from it here.
 */
export function isParsedJson(req: IncomingMessage): boolean {
  return !isDeferredBody(req) && mediaTypeOf(req) === JSON_MEDIA_TYPE;
}
