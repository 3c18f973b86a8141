import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const INFRA = path.resolve(__dirname, '../../scripts/infra.sh');

/** Stops or starts the local Kafka broker that `npm test` runs (to simulate an outage). */
export async function kafkaBroker(action: 'stop' | 'start'): Promise<void> {
  await run('bash', [INFRA, `${action}-kafka`], { timeout: 180_000 });
}
