import type { ProgressSummary, RestoreWorkflowInput } from './workflows/restore-contract';

/**
 * Where restores run (WORKFLOW_ENGINE): on Temporal or in this process (workflow-engine/). All
 * RestoreService knows of the engine; WorkflowEngineModule provides the one configured.
 */
export abstract class RestoreRunner {
  /**
   * Starts the job's run; resolves with its engine workflow id, throws when the engine cannot take
   * it. The caller records the id on the job (RestoreJobsRepository.markRunning) at once.
   */
  abstract start(input: RestoreWorkflowInput): Promise<string>;

  /** The `cancel` signal: the running step finishes, later ones are skipped. Throws when undeliverable. */
  abstract cancel(workflowId: string): Promise<void>;

  /** The run's progress now, or null when the engine does not answer (in time). */
  abstract progress(workflowId: string): Promise<ProgressSummary | null>;
}
