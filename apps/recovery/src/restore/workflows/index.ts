// Every workflow of the recovery task queue; the worker bundles this file.
export { restoreWorkflow } from './restore.workflow';
export { antinukeWorkflow } from '../../antinuke/workflows/antinuke.workflow';
