import type { NextFunction, Request, Response } from 'express';
import { Counter, Histogram } from 'prom-client';

const httpRequests = new Counter({
  name: 'http_requests_total',
  help: 'HTTP requests answered, by service, method, route template and status',
  labelNames: ['service', 'method', 'route', 'status'],
});

const httpDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'Time to answer an HTTP request, by service, method and route template',
  labelNames: ['service', 'method', 'route'],
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
});

/**
 * Counts and times every request by its route template (`/api/v1/guilds/:id`), never by its path:
 * ids in label values would make a series per guild. A request no route matched is `unmatched`.
 */
export function httpMetrics(service: string) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const template = (req.route as { path?: unknown } | undefined)?.path;
      const route = typeof template === 'string' ? `${req.baseUrl}${template}` : 'unmatched';
      observeHttpRequest(service, req.method, route, res.statusCode, started);
    });
    next();
  };
}

/** Counts and times one answered request; `started` is its `process.hrtime.bigint()` on arrival. */
export function observeHttpRequest(
  service: string,
  method: string,
  route: string,
  status: number,
  started: bigint,
): void {
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  httpRequests.inc({ service, method, route, status: String(status) });
  httpDuration.observe({ service, method, route }, seconds);
}
