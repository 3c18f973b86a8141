import { execFileSync } from 'node:child_process';
import path from 'node:path';
import './test-env';

/**
 * Brings the integration database to the latest migrations once per run, through the same
 * `npm run migrate` script operators use (globalSetup runs outside Jest's module mapping).
 */
export default function globalSetup(): void {
  execFileSync(process.execPath, ['-r', '@swc-node/register', 'scripts/migrate.ts'], {
    cwd: path.resolve(__dirname, '../..'),
    env: process.env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}
