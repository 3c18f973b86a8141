import { execFileSync } from 'node:child_process';
import path from 'node:path';
import type { ServiceName } from '@lib/contracts';
import { TEST_INTERNAL_KEYS } from './internal-keys';
import { defaultServiceDatabaseUrl, serviceDatabaseVariable } from './service-logins';
import './test-env';
import { testWorkerEnv } from './test-workers';

/**
 * Brings each Jest worker's database (test-workers.ts) to the latest migrations once per run,
 * through the same `npm run migrate` script operators use (globalSetup runs outside Jest's module
 * mapping). A run given a DATABASE_URL of its own has that one database for every worker: run it
 * in band.
 */
export default function globalSetup(globalConfig?: { maxWorkers?: number }): void {
  bundleWorkflowsOnce();
  // A DATABASE_URL the user gave is theirs (test-env defaults only what is unset).
  const perWorker = (process.env.TEST_ENV_DEFAULTED ?? '').split(',').includes('DATABASE_URL');
  const workers = perWorker ? Math.max(1, globalConfig?.maxWorkers ?? 1) : 1;
  // The projects of one run (integration, security, faults) each call this; once is enough.
  if (Number(process.env.TEST_DATABASES_MIGRATED ?? 0) >= workers) return;
  for (let worker = 1; worker <= workers; worker++) {
    const env: NodeJS.ProcessEnv = { ...process.env };
    if (worker > 1) {
      env.DATABASE_URL = testWorkerEnv(worker).DATABASE_URL;
      for (const service of Object.keys(TEST_INTERNAL_KEYS.signingKeys) as ServiceName[]) {
        env[serviceDatabaseVariable(service)] = defaultServiceDatabaseUrl(env.DATABASE_URL, service);
      }
    }
    execFileSync(process.execPath, ['-r', '@swc-node/register', 'scripts/migrate.ts'], {
      cwd: path.resolve(__dirname, '../..'),
      env,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  }
  process.env.TEST_DATABASES_MIGRATED = String(workers);
}

/**
 * The recovery workflow code, bundled once for the run as the image does at build time, so that
 * the many recovery workers the suites start load it instead of each running webpack over the
 * sources (about 4 s of CPU per start). Jest's workers and the apps they start inherit
 * TEMPORAL_WORKFLOW_BUNDLE from here; a run's own value is kept.
 */
function bundleWorkflowsOnce(): void {
  if (process.env.TEMPORAL_WORKFLOW_BUNDLE) return;
  const root = path.resolve(__dirname, '../..');
  const bundle = path.join(root, '.data/test/workflow-bundle.js');
  execFileSync(process.execPath, ['-r', '@swc-node/register', 'scripts/bundle-workflows.ts', bundle], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  process.env.TEMPORAL_WORKFLOW_BUNDLE = bundle;
}
