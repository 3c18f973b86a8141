import 'reflect-metadata';
import path from 'node:path';
import { firstScreen } from './first-screen';
import { startStandalone, StandaloneConfigError } from './standalone';

/**
 * `npm start`: the whole product in this process (standalone mode). PORT (default 3000) and HOST
 * (default 127.0.0.1: the sandbox is for this machine) choose where it answers; STANDALONE_DATA_DIR
 * (default .data/standalone) where it keeps its database, secrets and sandbox.
 */
async function main(): Promise<void> {
  const log = (line: string) => process.stderr.write(`[standalone] ${line}\n`);
  const env = process.env;
  const dataDir = path.resolve(env.STANDALONE_DATA_DIR || path.join(__dirname, '..', '.data', 'standalone'));
  let standalone;
  try {
    standalone = await startStandalone({
      env,
      dataDir,
      port: env.PORT ? Number(env.PORT) : 3000,
      host: env.HOST || '127.0.0.1',
      log,
    });
  } catch (error) {
    if (error instanceof StandaloneConfigError) {
      log(error.message);
      process.exit(1);
    }
    throw error;
  }
  process.stdout.write(firstScreen(standalone, dataDir));
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping`);
    standalone.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        log(`stop failed: ${String(error)}`);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  process.stderr.write(
    `[standalone] could not start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
