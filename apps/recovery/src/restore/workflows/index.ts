// Every workflow of the recovery task queue; the worker bundles this file.
export { restoreWorkflow } from './restore.workflow';
