import type { NextFunction, Request, Response } from 'express';

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

/**
 * After the JSON parser: a parsed body nested too deep or holding unstorable text is refused with a
 * 400 problem before validation (whose recursion would overflow) or the database (which would
 * refuse the text) sees it.
 */
export function guardJsonBody(req: Request, _res: Response, next: NextFunction): void {
  const problem = typeof req.body === 'object' && req.body !== null ? jsonValueProblem(req.body) : null;
  if (!problem) return next();
  next(Object.assign(new Error(problem), { status: 400, expose: true, type: 'entity.verify.failed' }));
}
