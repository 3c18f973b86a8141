import { execFileSync } from 'node:child_process';
import path from 'node:path';
import './test-env';
import { serviceLoginsOn, testWorkerEnv } from './test-workers';

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
    // Worker 1's is the environment test-env made here (or the user's own DATABASE_URL).
    const database = worker === 1 ? process.env.DATABASE_URL! : testWorkerEnv(worker).DATABASE_URL;
    const env = { ...process.env, DATABASE_URL: database, ...serviceLoginsOn(database) };
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
  // The bundler's module list stays out of the run's output; a failure's message carries it.
  execFileSync(process.execPath, ['-r', '@swc-node/register', 'scripts/bundle-workflows.ts', bundle], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  process.env.TEMPORAL_WORKFLOW_BUNDLE = bundle;
}
