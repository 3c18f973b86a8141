import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, connect } from 'node:net';

/** True when something listens on the loopback port. */
export function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Stands between intake and billing: forwards every routed event to the real billing, counts them
 * per event id, and can answer 503 instead (billing down) for a while.
 */
export class BillingTap {
  private server?: Server;
  failing = false;
  /** The next this many routings are answered 503 too, one fewer each time. */
  failNext = 0;
  readonly routed = new Map<string, number>();
  /** The x-request-id each event was routed with, by event id (the last delivery's). */
  readonly requestIds = new Map<string, string | undefined>();

  constructor(private readonly billingUrl: string) {}

  async start(): Promise<string> {
    this.server = createServer((req, res) => void this.forward(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  private async forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    if (this.failing || this.failNext > 0) {
      this.failNext = Math.max(0, this.failNext - 1);
      res.writeHead(503, { 'content-type': 'application/problem+json' }).end('{"code":"ErrUnavailable"}');
      return;
    }
    const eventId = (JSON.parse(body.toString()) as { event_id: string }).event_id;
    this.routed.set(eventId, (this.routed.get(eventId) ?? 0) + 1);
    this.requestIds.set(eventId, req.headers['x-request-id'] as string | undefined);
    const answer = await fetch(`${this.billingUrl}${req.url}`, {
      method: req.method,
      headers: {
        'content-type': 'application/json',
        'x-internal-token': String(req.headers['x-internal-token']),
      },
      body,
    });
    res.writeHead(answer.status, {
      'content-type': answer.headers.get('content-type') ?? 'application/json',
    });
    res.end(Buffer.from(await answer.arrayBuffer()));
  }
}
