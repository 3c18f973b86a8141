import type { INestApplication } from '@nestjs/common';
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { observeHttpRequest } from './http-metrics';

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
 * Puts the plain routes in front of the app's server: a request for one of them goes to its handler,
 * any other to Express as before. What the server calls is then also what a standalone front
 * hands the app's requests to (`requestListenerOf`).
 */
export function servePlainRoutes(server: Server, service: string, routes: PlainRoute[]): void {
  if (routes.length === 0) return;
  const [framework] = server.listeners('request') as RequestListener[];
  const byRequestLine = new Map(routes.map((route) => [`${route.method} ${route.path}`, route]));
  server.removeListener('request', framework);
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const route = byRequestLine.get(`${req.method} ${query === -1 ? url : url.slice(0, query)}`);
    if (!route) return framework(req, res);
    const started = process.hrtime.bigint();
    res.once('finish', () => observeHttpRequest(service, route.method, route.path, res.statusCode, started));
    route.handle(req, res);
  });
}

/** The function the app's HTTP server calls for each request (its plain routes, then Express). */
export function requestListenerOf(app: INestApplication): RequestListener {
  const [listener] = (app.getHttpServer() as Server).listeners('request') as RequestListener[];
  return listener;
}
