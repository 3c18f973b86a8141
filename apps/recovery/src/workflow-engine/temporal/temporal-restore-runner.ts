import { Injectable } from '@nestjs/common';
import { TemporalEngineAdapter } from './temporal-engine-adapter';
import type { RestoreRunner } from '../../restore/restore-runner';
import {
  CANCEL_RESTORE_SIGNAL,
  type ProgressSummary,
  RESTORE_PROGRESS_QUERY,
  RESTORE_WORKFLOW_TYPE,
  type RestoreWorkflowInput,
  restoreWorkflowId,
} from '../../restore/workflows/restore-contract';

/** How long a job read waits for the workflow's progress before answering without it. */
const PROGRESS_QUERY_TIMEOUT_MS = 2_000;

/** Restores on Temporal: `restoreWorkflow` on the task queue, signal `cancel`, query `getProgress`. */
@Injectable()
export class TemporalRestoreRunner extends TemporalEngineAdapter implements RestoreRunner {
  async start(input: RestoreWorkflowInput): Promise<string> {
    const workflowId = restoreWorkflowId(input.jobId);
    await this.temporal.workflow.start(RESTORE_WORKFLOW_TYPE, {
      taskQueue: this.options.taskQueue,
      workflowId,
      args: [input],
    });
    return workflowId;
  }

  async cancel(workflowId: string): Promise<void> {
    await this.temporal.workflow.getHandle(workflowId).signal(CANCEL_RESTORE_SIGNAL);
  }

  progress(workflowId: string): Promise<ProgressSummary | null> {
    const timeout = new Promise<null>((resolve) =>
      setTimeout(resolve, PROGRESS_QUERY_TIMEOUT_MS, null).unref(),
    );
    const query = this.temporal.workflow
      .getHandle(workflowId)
      .query<ProgressSummary>(RESTORE_PROGRESS_QUERY)
      .catch((error: unknown) => {
        this.logger.warn({ err: error, workflow_id: workflowId }, 'progress query failed');
        return null;
      });
    return Promise.race([query, timeout]);
  }
}
