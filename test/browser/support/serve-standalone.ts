import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startStandalone } from '../../../standalone/standalone';
import { startControlServer } from './control-server';
import { STACK_LINE_PREFIX, type StackInfo } from './stack-info';

/**
 * The product as `npm start` runs it (embedded Postgres, in-process events and restores, the
 * sandbox platform and provider with the demo guild), on a fresh data folder and a free port, with
 * the browser suite's control server over its sandbox. Prints one StackInfo line; SIGTERM stops.
 */
async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'guildkeeper-browser-'));
  const standalone = await startStandalone({
    env: {
      LOG_LEVEL: 'error',
      // Every request of the suite comes from 127.0.0.1.
      RATE_LIMIT_IP_PER_MINUTE: '100000',
      RATE_LIMIT_SESSION_PER_MINUTE: '100000',
    },
    dataDir,
    port: 0,
    host: '127.0.0.1',
    log: (line) => process.stderr.write(`[standalone] ${line}\n`),
  });
  const sandbox = standalone.sandbox;
  if (!sandbox?.platform || !sandbox.provider || !sandbox.demo) throw new Error('the sandbox did not start');
  const control = await startControlServer(sandbox.platform, sandbox.provider, sandbox.demo, null);
  const info: StackInfo = { kind: 'standalone', url: standalone.url, controlUrl: control.url };
  process.stdout.write(`${STACK_LINE_PREFIX}${JSON.stringify(info)}\n`);

  const stop = () => {
    control.server.close();
    void standalone.stop().finally(() => {
      rmSync(dataDir, { recursive: true, force: true });
      process.exit(0);
    });
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`serve-standalone failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
