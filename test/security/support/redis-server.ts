import Redis, { type RedisOptions } from 'ioredis';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../../support/app-process';
import { portOpen } from '../../support/billing-tap';
import { waitFor } from '../../support/wait';

/** A throwaway CA and a server certificate it signed for 127.0.0.1, made with openssl. */
export interface TestCertificates {
  caFile: string;
  certFile: string;
  keyFile: string;
  remove(): void;
}

export function makeTestCertificates(): TestCertificates {
  const dir = mkdtempSync(path.join(tmpdir(), 'gk-redis-tls-'));
  const file = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  openssl(
    ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=guildkeeper test CA'],
    ...['-keyout', file('ca.key'), '-out', file('ca.crt')],
  );
  openssl(
    ...['req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=redis.test'],
    ...['-keyout', file('server.key'), '-out', file('server.csr')],
  );
  // Clients check the address they dialled against the certificate's subjectAltName.
  writeFileSync(file('server.ext'), 'subjectAltName = IP:127.0.0.1\n');
  openssl(
    ...['x509', '-req', '-in', file('server.csr'), '-CA', file('ca.crt'), '-CAkey', file('ca.key')],
    ...['-CAcreateserial', '-days', '1', '-extfile', file('server.ext'), '-out', file('server.crt')],
  );
  return {
    caFile: file('ca.crt'),
    certFile: file('server.crt'),
    keyFile: file('server.key'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export interface TestRedisServer {
  port: number;
  /** `redis://` (`rediss://` with TLS) at this server, carrying `password` when given. */
  url(password?: string): string;
  /** A client of the test's own; the caller disconnects it. */
  client(password?: string, options?: RedisOptions): Redis;
  stop(): Promise<void>;
}

/**
 * A redis-server of the test's own on a free loopback port, protected by `requirepass`, writing
 * nothing to disk; with `tls` it speaks TLS only (no plaintext port) with the given certificate.
 */
export async function startRedisServer({
  password,
  tls,
}: {
  password: string;
  tls?: TestCertificates;
}): Promise<TestRedisServer> {
  const port = await freePort();
  const listen = tls
    ? [
        ...['--port', '0', '--tls-port', String(port)],
        ...['--tls-cert-file', tls.certFile, '--tls-key-file', tls.keyFile, '--tls-ca-cert-file', tls.caFile],
        // The server proves itself with its certificate; clients prove themselves with the password.
        ...['--tls-auth-clients', 'no'],
      ]
    : ['--port', String(port)];
  const child = spawn(
    'redis-server',
    [...listen, '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--requirepass', password],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await waitFor(`redis-server on ${port}`, () => {
    // A build without TLS, say, refuses `--tls-port` and exits: say so instead of timing out.
    if (child.exitCode !== null) throw new Error(`redis-server exited: ${output.slice(-1000)}`);
    return portOpen(port);
  });
  const url = (pass?: string) =>
    `${tls ? 'rediss' : 'redis'}://${pass === undefined ? '' : `:${encodeURIComponent(pass)}@`}127.0.0.1:${port}`;
  return {
    port,
    url,
    client: (pass?: string, options: RedisOptions = {}) => {
      const client = new Redis(url(pass), {
        // One attempt: a refusal must surface as this command's error, not as endless retries.
        maxRetriesPerRequest: 0,
        retryStrategy: () => null,
        ...(tls && { tls: { ca: readFileSync(tls.caFile) } }),
        ...options,
      });
      // The refusal also reaches the command's promise, which is what the tests look at.
      client.on('error', () => undefined);
      return client;
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
