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
