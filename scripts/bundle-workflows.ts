import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';

/**
 * `node -r @swc-node/register scripts/bundle-workflows.ts [out-file]`: prebuilds the workflow code of
 * the recovery task queue (restore, antinuke) once, at image build time, so that a worker loads it
 * with `workflowBundle: { codePath }` instead of running webpack over the sources at every start.
 * The bundle comes from the same entry the worker bundles in development and tests.
 */
const ROOT = path.resolve(__dirname, '..');
export const WORKER_BUNDLE_ENTRY = path.join(ROOT, 'apps/recovery/src/workflow-engine/worker-bundle.ts');
export const DEFAULT_BUNDLE_FILE = path.join(ROOT, 'dist/apps/recovery/workflow-bundle.js');

export async function bundleRecoveryWorkflows(outFile: string): Promise<number> {
  const { code } = await bundleWorkflowCode({ workflowsPath: WORKER_BUNDLE_ENTRY });
  mkdirSync(path.dirname(outFile), { recursive: true });
  writeFileSync(outFile, code);
  return Buffer.byteLength(code);
}

if (require.main === module) {
  const outFile = path.resolve(process.argv[2] ?? DEFAULT_BUNDLE_FILE);
  bundleRecoveryWorkflows(outFile).then(
    (bytes) => process.stdout.write(`workflow bundle: ${outFile} (${bytes} bytes)\n`),
    (error: unknown) => {
      process.stderr.write(`bundling failed: ${error instanceof Error ? error.stack : String(error)}\n`);
      process.exit(1);
    },
  );
}
