import type { ServiceName } from '@lib/contracts';
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { TEST_INTERNAL_KEYS } from './internal-keys';
import { serviceDatabaseUrl } from './service-logins';
import { waitFor } from './wait';

const ROOT = path.resolve(__dirname, '../..');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export interface AppProcess {
  name: ServiceName;
  url: string;
  child: ChildProcess;
  output: () => string;
  /** SIGTERM and wait; resolves with the exit code (null when killed by a signal). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Runs `node <script>` from the repository (TypeScript through swc) as its own process. */
export function runScript(
  script: string,
  env: Record<string, string | undefined>,
): {
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: string | null }>;
} {
  let output = '';
  // CPU_PROFILE_DIR: the process writes a V8 CPU profile there when it exits (open it in DevTools).
  const profile = env.CPU_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${env.CPU_PROFILE_DIR}`] : [];
  const child = spawn(process.execPath, [...profile, '-r', '@swc-node/register', script], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, output: () => output, exited };
}

/**
 * Starts one app as a separate process and waits until `/health/ready` answers 200, or only
 * `/health/live` (`until: 'live'`) for an app expected not to become ready (a dependency refuses it).
 */
export async function startApp(
  name: ServiceName,
  env: Record<string, string | undefined> = {},
  {
    readyTimeoutMs = 60_000,
    port: fixedPort,
    until = 'ready',
  }: { readyTimeoutMs?: number; port?: number; until?: 'ready' | 'live' } = {},
): Promise<AppProcess> {
  const port = fixedPort ?? (await freePort());
  const url = `http://127.0.0.1:${port}`;
  const proc = runScript(`apps/${name}/src/main.ts`, {
    PORT: String(port),
    MIGRATE_ON_START: 'true',
    NODE_ENV: 'test',
    INTERNAL_SIGNING_KEY: TEST_INTERNAL_KEYS.signingKeys[name],
    DATABASE_URL: serviceDatabaseUrl(name),
    ...env,
  });
  let exitedEarly = false;
  void proc.exited.then(() => (exitedEarly = true));
  try {
    await waitFor(
      `${name} to be ${until}`,
      async () => {
        if (exitedEarly) throw new Error(`${name} exited: ${proc.output().slice(-2000)}`);
        const response = await fetch(`${url}/health/${until}`).catch(() => undefined);
        return response?.status === 200;
      },
      { timeoutMs: readyTimeoutMs, intervalMs: 250 },
    );
  } catch (error) {
    proc.child.kill('SIGKILL');
    throw new Error(`${(error as Error).message}\n--- ${name} output ---\n${proc.output().slice(-3000)}`);
  }
  return {
    name,
    url,
    child: proc.child,
    output: proc.output,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (proc.child.exitCode !== null || proc.child.signalCode !== null) return proc.child.exitCode;
      proc.child.kill(signal);
      const timer = setTimeout(() => proc.child.kill('SIGKILL'), 15_000);
      const { code } = await proc.exited;
      clearTimeout(timer);
      return code;
    },
  };
}
