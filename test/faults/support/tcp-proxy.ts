import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * A loopback TCP proxy in front of a server (Postgres, Redis): the app under test connects through
 * it, and the test cuts every connection and refuses new ones, as a network partition or a
 * restarted server would, then lets connections through again.
 */
export class TcpProxy {
  private server?: Server;
  private readonly open = new Set<Socket>();
  private cutOff = false;
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  async start(): Promise<number> {
    const server = createServer((client) => {
      if (this.cutOff) {
        client.destroy();
        return;
      }
      const upstream = createConnection(this.target);
      for (const socket of [client, upstream]) {
        this.open.add(socket);
        socket.once('close', () => this.open.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.server = server;
    this.port = (server.address() as { port: number }).port;
    return this.port;
  }

  /** `url` with its host and port replaced by the proxy's. */
  through(url: string): string {
    const parsed = new URL(url);
    parsed.hostname = '127.0.0.1';
    parsed.port = String(this.port);
    return parsed.toString();
  }

  /** Drops every open connection and refuses new ones until `restore()`. */
  cut(): void {
    this.cutOff = true;
    for (const socket of this.open) socket.destroy();
  }

  restore(): void {
    this.cutOff = false;
  }

  async stop(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
