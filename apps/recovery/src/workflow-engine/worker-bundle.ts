// The workflow code of the recovery task queue: the worker bundles this file (Temporal's sandbox:
// each workflow imports only types from modules that use Node). One line per workflow of
// WORKFLOW_REGISTRY (workflow-registry.ts); workflow-registry.spec.ts checks that they agree.
export { restoreWorkflow } from '../restore/workflows/restore.workflow';
export { antinukeWorkflow } from '../antinuke/workflows/antinuke.workflow';
