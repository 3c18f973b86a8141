import { REQUEST_ID_HEADER } from '@lib/contracts';
import { CommonErrors, sendProblem, toProblem } from '@lib/problem-details';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { requestIdFor } from './logging.module';

/** What `captureRawBody` leaves on the request for the route's handler. */
export interface RawBodyRequest extends IncomingMessage {
  /** The exact bytes received, never more than the route's limit. */
  rawBody?: Buffer;
  rawBodyBytes?: number;
  /**
   * @deprecated Set only on a request the capture has already answered 413 itself; the handler is
   * never called for one, so no handler needs to check it any more.
   */
  rawBodyTooLarge?: boolean;
}

/**
 * How long a connection whose request body is left unread stays half-closed after the answer
 * before it is closed: long enough for the answer to reach the client over any network.
 */
export const UNREAD_BODY_CLOSE_GRACE_MS = 2_000;

export interface RawBodyRoute {
  path: string;
  limitBytes: number;
}

/**
 * Reads a route's body as bytes, whatever its content type or validity, so the handler can verify
 * a signature over exactly what was sent and record even a malformed request. The JSON parser
 * registered after it leaves such requests alone (it skips a request whose body is read).
 *
 * A body over the limit never reaches the handler, and is not read: these routes take bodies from
 * callers who are not authenticated yet (a webhook's signature, the gateway's session are checked
 * after), so the bytes are refused before anyone pays for them. A `Content-Length` over the limit is
 * answered 413 at once; a body without one (chunked) is read up to the limit and then answered 413.
 * Either way the rest is left unread (`closeWithoutReading`).
 */
export function captureRawBody(limitBytes: number) {
  return (
    req: RawBodyRequest & { _body?: boolean; body?: unknown },
    res: ServerResponse,
    next: (error?: unknown) => void,
  ) => {
    if (req.method !== 'POST' && req.method !== 'PUT') return next();
    if (Number(req.headers['content-length'] ?? 0) > limitBytes) return refuseTooLarge(req, res, limitBytes);
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limitBytes) return void chunks.push(chunk);
      req.off('data', onData).off('end', onEnd).off('error', next);
      // Late errors of a connection we are closing concern no one.
      req.on('error', () => undefined);
      chunks.length = 0;
      refuseTooLarge(req, res, limitBytes);
    };
    const onEnd = () => {
      req.rawBodyBytes = size;
      req.rawBody = Buffer.concat(chunks, size);
      req._body = true;
      req.body = {};
      next();
    };
    req.on('data', onData);
    req.once('error', next);
    req.once('end', onEnd);
  };
}

function refuseTooLarge(req: RawBodyRequest, res: ServerResponse, limitBytes: number): void {
  req.rawBodyTooLarge = true;
  closeWithoutReading(req, res);
  // The webhook endpoint has its request id already; under Express the logger has not run yet.
  const known = res.getHeader(REQUEST_ID_HEADER);
  const requestId = typeof known === 'string' ? known : requestIdFor(req, res);
  const error = CommonErrors.payloadTooLarge(`The request body is over the limit of ${limitBytes} bytes.`);
  // Express strips the mount path from `url`; `originalUrl` is what the client asked for.
  const { originalUrl } = req as { originalUrl?: string };
  sendProblem(res, toProblem(error, requestId, originalUrl ?? req.url));
}

/**
 * For an answer given before the request's body is read (too large, rate limited): the rest of the
 * body is never read, and the answer (`Connection: close`) is the connection's last.
 *
 * Node would read and drop the rest after the answer, and then close at once; with the client's
 * bytes still arriving, that close is a reset, which can reach the client before it has read the
 * answer (RFC 9112 §9.6: the client sees EPIPE, not the 413). So the request is held paused (and
 * counted as being read, which keeps Node from draining it), and after the answer the connection is
 * half-closed and no longer read: the client's writes stall on a full window instead, it reads the
 * answer, and the connection is closed after `UNREAD_BODY_CLOSE_GRACE_MS`.
 */
export function closeWithoutReading(req: IncomingMessage, res: ServerResponse): void {
  res.setHeader('connection', 'close');
  req.pause();
  req.read(0);
  const { socket } = req;
  // Node ends a `Connection: close` answer with this call once the answer is written.
  socket.destroySoon = () => {
    socket.end();
    socket.pause();
    const timer = setTimeout(() => socket.destroy(), UNREAD_BODY_CLOSE_GRACE_MS);
    socket.once('close', () => clearTimeout(timer));
  };
}
