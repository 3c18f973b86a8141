import * as bundleEntry from './worker-bundle';
import { WORKFLOW_REGISTRY } from './workflow-registry';

describe('WORKFLOW_REGISTRY', () => {
  it('names exactly the workflows the worker bundles', () => {
    const registered = WORKFLOW_REGISTRY.map((workflow) => workflow.workflowType).sort();
    expect(Object.keys(bundleEntry).sort()).toEqual(registered);
    for (const type of registered)
      expect(typeof bundleEntry[type as keyof typeof bundleEntry]).toBe('function');
  });

  it('gives every workflow the same tokens on both engines', () => {
    const provided = (providers: unknown[]) =>
      providers.map((provider) => (provider as { provide: unknown }).provide);
    for (const workflow of WORKFLOW_REGISTRY) {
      expect(provided(workflow.temporal)).toEqual(workflow.exports);
      expect(provided(workflow.inProcess)).toEqual(workflow.exports);
    }
  });
});
