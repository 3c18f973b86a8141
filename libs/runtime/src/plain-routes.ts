import type { INestApplication } from '@nestjs/common';
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { CommonErrors, sendProblem, toProblem } from '@lib/problem-details';
import { observeHttpRequest } from './http-metrics';
import { requestIdFor } from './logging.module';

/**
 * A route whose handler answers on Node's own request and response, ahead of Express and Nest: for a
 * hot path that needs no guard, pipe, parser or middleware of theirs, where their cost per request
 * shows (the provider's webhook). Matched on the method and the exact path (query string aside).
 * It is still counted and timed in `http_requests_total` / `http_request_duration_seconds`; its
 * handler owns everything else (body limit, request id, problem bodies).
 */
export interface PlainRoute {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  handle(req: IncomingMessage, res: ServerResponse): void;
}

/**
 * The front of the app's server, ahead of Express: a request whose target is not a path (the
 * absolute form `POST http://elsewhere/... HTTP/1.1`, the authority or asterisk form) is refused
 * 400 here, so no route ever sees a URL whose host the client chose; a request for a plain route goes
 * to its handler; any other to Express as before. What the server calls is then also what a
 * standalone front hands the app's requests to (`requestListenerOf`).
 */
export function servePlainRoutes(server: Server, service: string, routes: PlainRoute[]): void {
  const [framework] = server.listeners('request') as RequestListener[];
  const byRequestLine = new Map(routes.map((route) => [`${route.method} ${route.path}`, route]));
  server.removeListener('request', framework);
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '/';
    if (!isOriginForm(url)) return refuseRequestTarget(req, res);
    const query = url.indexOf('?');
    const route = byRequestLine.get(`${req.method} ${query === -1 ? url : url.slice(0, query)}`);
    if (!route) return framework(req, res);
    const started = process.hrtime.bigint();
    res.once('finish', () => observeHttpRequest(service, route.method, route.path, res.statusCode, started));
    route.handle(req, res);
  });
}

/** RFC 9112 §3.2.1: a path starting with one slash (two would read as an authority to a URL parser). */
export function isOriginForm(target: string): boolean {
  return target.startsWith('/') && !target.startsWith('//');
}

function refuseRequestTarget(req: IncomingMessage, res: ServerResponse): void {
  const requestId = requestIdFor(req, res);
  res.setHeader('connection', 'close');
  sendProblem(
    res,
    toProblem(
      CommonErrors.badRequest('The request target must be a path starting with a single "/".'),
      requestId,
    ),
  );
}

/** The function the app's HTTP server calls for each request (its plain routes, then Express). */
export function requestListenerOf(app: INestApplication): RequestListener {
  const [listener] = (app.getHttpServer() as Server).listeners('request') as RequestListener[];
  return listener;
}
