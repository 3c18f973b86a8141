import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { STACK_LINE_PREFIX, type StackInfo } from './stack-info';

const ROOT = path.resolve(__dirname, '../../..');
const START_TIMEOUT_MS = 240_000;

/**
 * Starts the stack BROWSER_STACK names in a process of its own (TypeScript through swc, as the
 * apps run) and hands its addresses to the tests in BROWSER_STACK_INFO; the teardown stops it.
 */
export default async function globalSetup(): Promise<() => Promise<void>> {
  const kind = process.env.BROWSER_STACK === 'distributed' ? 'distributed' : 'standalone';
  const child = spawn(
    process.execPath,
    ['-r', '@swc-node/register', `test/browser/support/serve-${kind}.ts`],
    {
      cwd: ROOT,
      env: process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000)));
  const info = await new Promise<StackInfo>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the ${kind} stack did not start:\n${output}`)),
      START_TIMEOUT_MS,
    );
    let buffered = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const line = buffered.split('\n').find((candidate) => candidate.startsWith(STACK_LINE_PREFIX));
      if (!line) return;
      clearTimeout(timer);
      resolve(JSON.parse(line.slice(STACK_LINE_PREFIX.length)) as StackInfo);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the ${kind} stack exited (${code}):\n${output}`));
    });
  });
  process.env.BROWSER_STACK_INFO = JSON.stringify(info);
  return () => stop(child);
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
