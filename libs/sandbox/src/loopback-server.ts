import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Listens on `host:port` (0: any free port) and returns the server's base URL. */
export async function listenOnLoopback(server: Server, host: string, port: number): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return `http://${host}:${(server.address() as AddressInfo).port}`;
}

/** Closes the server and its keep-alive connections, so a fake stops at once. */
export async function closeAtOnce(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve, reject) =>
    server.close((error) => (error ? reject(error) : resolve())),
  );
  server.closeAllConnections();
  await closed;
}

/**
 * The one server a fake runs on loopback, started and stopped at will. `start` asks for a new
 * server with the signal that aborts when it stops (answers it holds are dropped then); a second
 * `start` while it runs answers the same address.
 */
export class LoopbackServer {
  private server?: Server;
  private baseUrl?: string;
  private stopping = new AbortController();

  /** `what` names the fake in the error of reading `url` before it started. */
  constructor(
    private readonly what: string,
    private readonly host: string,
    private readonly port: number,
  ) {}

  /** The base address, e.g. `http://127.0.0.1:1234`. */
  get url(): string {
    if (!this.baseUrl) throw new Error(`the ${this.what} is not started`);
    return this.baseUrl;
  }

  async start(newServer: (stopping: AbortSignal) => Server): Promise<string> {
    if (this.server) return this.url;
    this.stopping = new AbortController();
    const server = newServer(this.stopping.signal);
    this.baseUrl = await listenOnLoopback(server, this.host, this.port);
    this.server = server;
    return this.baseUrl;
  }

  /** Aborts the stop signal, runs `beforeClose` (a fake's own connections), then closes at once. */
  async stop(beforeClose?: () => Promise<void>): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    this.baseUrl = undefined;
    this.stopping.abort();
    await beforeClose?.();
    await closeAtOnce(server);
  }
}
