import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  Optional,
} from '@nestjs/common';
import { ANTINUKE_ACTIVITIES } from '../antinuke/activities/antinuke.activities';
import type { AntiNukeActivities } from '../antinuke/workflows/antinuke-contract';
import { createRecoveryWorker, type RecoveryWorker } from '../temporal/recovery-worker';
import { TEMPORAL_OPTIONS, type TemporalOptions } from '../temporal/temporal.module';
import { RESTORE_ACTIVITIES } from './activities/restore.activities';
import type { RestoreActivities } from './workflows/restore-contract';

export const RESTORE_WORKER_ENABLED = Symbol('RESTORE_WORKER_ENABLED');
const RETRY_CONNECT_MS = 5_000;

/**
 * Runs the recovery workflows and activities in this process when RECOVERY_ROLE is `worker` or
 * `all` and the workflow engine is Temporal (no TEMPORAL_OPTIONS with WORKFLOW_ENGINE=in-process,
 * where InProcessRestoreWorkflows runs restores instead). The workflow code is bundled at start; the
 * HTTP side does not wait for it, and the worker keeps trying while Temporal is not reachable yet.
 * Shutdown lets running activities end.
 */
@Injectable()
export class RestoreWorkerService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(RestoreWorkerService.name);
  private worker: RecoveryWorker | undefined;
  private starting: Promise<void> | undefined;
  private stopping = false;

  constructor(
    @Inject(RESTORE_WORKER_ENABLED) private readonly enabled: boolean,
    @Inject(RESTORE_ACTIVITIES) private readonly restore: RestoreActivities,
    @Inject(ANTINUKE_ACTIVITIES) private readonly antinuke: AntiNukeActivities,
    @Optional() @Inject(TEMPORAL_OPTIONS) private readonly temporal: TemporalOptions | null = null,
  ) {}

  onApplicationBootstrap(): void {
    if (this.enabled && this.temporal) this.starting = this.start(this.temporal);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    await this.starting;
    await this.worker?.shutdown();
  }

  private async start(temporal: TemporalOptions): Promise<void> {
    while (!this.stopping) {
      try {
        this.worker = await createRecoveryWorker({
          address: temporal.address,
          namespace: temporal.namespace,
          taskQueue: temporal.taskQueue,
          workflows: temporal.workflowBundlePath
            ? { workflowBundle: { codePath: temporal.workflowBundlePath } }
            : { workflowsPath: require.resolve('./workflows') },
          activities: { ...this.restore, ...this.antinuke },
        });
        if (this.stopping) return;
        this.worker
          .run()
          .catch((error: unknown) => this.logger.error({ err: error }, 'recovery worker stopped'));
        this.logger.log('recovery worker running');
        return;
      } catch (error) {
        this.logger.warn(
          { err: error },
          `recovery worker could not start; retrying in ${RETRY_CONNECT_MS / 1000} s`,
        );
        await new Promise((resolve) => setTimeout(resolve, RETRY_CONNECT_MS));
      }
    }
  }
}
