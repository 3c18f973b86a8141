import type { IncomingMessage, ServerResponse } from 'node:http';

/** What `captureRawBody` leaves on the request for the route's handler. */
export interface RawBodyRequest extends IncomingMessage {
  /** The exact bytes received; undefined when the body was over the limit. */
  rawBody?: Buffer;
  rawBodyBytes?: number;
  rawBodyTooLarge?: boolean;
}

export interface RawBodyRoute {
  path: string;
  limitBytes: number;
}

/**
 * Reads a route's body as bytes, whatever its content type or validity, so the handler can verify
 * a signature over exactly what was sent and record even a malformed or oversize request. The JSON
 * parser registered after it leaves such requests alone (it skips a request whose body is read).
 */
export function captureRawBody(limitBytes: number) {
  return (
    req: RawBodyRequest & { _body?: boolean; body?: unknown },
    _res: ServerResponse,
    next: (error?: unknown) => void,
  ) => {
    if (req.method !== 'POST' && req.method !== 'PUT') return next();
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      // Past the limit the rest is read and dropped, so the client still gets its answer.
      if (size <= limitBytes) chunks.push(chunk);
    });
    req.once('error', next);
    req.once('end', () => {
      req.rawBodyBytes = size;
      req.rawBodyTooLarge = size > limitBytes;
      req.rawBody = req.rawBodyTooLarge ? undefined : Buffer.concat(chunks, size);
      req._body = true;
      req.body = {};
      next();
    });
  };
}
