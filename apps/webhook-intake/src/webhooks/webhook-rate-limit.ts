import { Logger } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';

const WINDOW_MS = 60_000;

/**
 * The address a request came from: the socket's peer, or with `trustedHops` proxies in front (the
 * ingress), the address the outermost trusted one saw, read from X-Forwarded-For right to left. The
 * entries further left were written by the client and are never believed. Express's numeric
 * `trust proxy` (the gateway's TRUST_PROXY_HOPS) picks the same one.
 */
export function clientAddress(req: IncomingMessage, trustedHops: number): string {
  const peer = req.socket.remoteAddress ?? 'unknown';
  if (trustedHops === 0) return peer;
  const header = req.headers['x-forwarded-for'];
  const forwarded = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((address) => address.trim())
    .filter((address) => address.length > 0);
  const nearestFirst = [peer, ...forwarded.reverse()];
  return nearestFirst[Math.min(trustedHops, nearestFirst.length - 1)];
}

/**
 * WEBHOOK_RATE_LIMIT_PER_MINUTE requests per client address on the webhook endpoint, counted before
 * the body is read. Each address has a one-minute window from its first request; past the limit,
 * requests are refused until the window ends.
 *
 * In memory, per replica: the intake's hot path must not wait on Redis for this, and it is a
 * backstop (the ingress limits first in k8s) or standalone mode's one process, so a client may get
 * the limit once per replica. Windows that ended are swept once a minute, so the map holds only the
 * addresses of the last minute or two.
 */
export class WebhookRateLimiter {
  private readonly logger = new Logger(WebhookRateLimiter.name);
  private readonly windows = new Map<string, { count: number; endsAt: number }>();
  private nextSweepAt = 0;

  constructor(
    /** 0: no limit. */
    readonly perMinute: number,
    private readonly trustedHops: number,
  ) {}

  /** Counts the request; null when it may go on, else the seconds until its address may send again. */
  admit(req: IncomingMessage, now = Date.now()): number | null {
    if (this.perMinute === 0) return null;
    this.sweep(now);
    const client = clientAddress(req, this.trustedHops);
    let window = this.windows.get(client);
    if (!window || window.endsAt <= now) {
      window = { count: 0, endsAt: now + WINDOW_MS };
      this.windows.set(client, window);
    }
    window.count += 1;
    if (window.count <= this.perMinute) return null;
    if (window.count === this.perMinute + 1) {
      // Once per address and window: a flood must not become a flood of log lines.
      this.logger.warn(
        { alert: 'webhook_rate_limited', client, limit: this.perMinute },
        'webhook requests over the rate limit',
      );
    }
    return Math.max(1, Math.ceil((window.endsAt - now) / 1_000));
  }

  private sweep(now: number): void {
    if (now < this.nextSweepAt) return;
    this.nextSweepAt = now + WINDOW_MS;
    for (const [client, window] of this.windows) {
      if (window.endsAt <= now) this.windows.delete(client);
    }
  }
}
