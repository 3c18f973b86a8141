import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';

/**
 * The worker bundles worker-bundle.ts with Temporal's webpack build, which knows no tsconfig paths
 * and refuses Node built-ins: what workflow code imports (the contracts, the named problems of the
 * `*.errors.ts` modules) must load there, not only under Jest and Nest.
 */
describe('the workflow bundle', () => {
  it('builds from worker-bundle.ts without Nest', async () => {
    const { code } = await bundleWorkflowCode({
      workflowsPath: require.resolve('./worker-bundle'),
      logger: new DefaultLogger('ERROR'),
    });
    expect(code).toContain('ErrSnapshotNotFound');
    expect(code).not.toMatch(/node_modules\/@nestjs\//);
  }, 60_000);
});
