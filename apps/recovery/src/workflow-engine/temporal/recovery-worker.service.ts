import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { createRecoveryWorker, type RecoveryWorker } from './recovery-worker';
import { TEMPORAL_OPTIONS, type TemporalOptions } from './temporal.module';

/** Whether this process runs the worker (RECOVERY_ROLE worker or all). */
export const RECOVERY_WORKER_ENABLED = Symbol('RECOVERY_WORKER_ENABLED');
/** The activities of every workflow of WORKFLOW_REGISTRY, in one object. */
export const RECOVERY_ACTIVITIES = Symbol('RECOVERY_ACTIVITIES');
const RETRY_CONNECT_MS = 5_000;

/**
 * Runs the recovery workflows and activities in this process when RECOVERY_ROLE is `worker` or
 * `all`; WorkflowEngineModule provides it only with WORKFLOW_ENGINE=temporal (in process, the
 * in-process engine runs them instead). The workflow code is bundled at start; the
 * HTTP side does not wait for it, and the worker keeps trying while Temporal is not reachable yet.
 * Shutdown lets running activities end.
 */
@Injectable()
export class RecoveryWorkerService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(RecoveryWorkerService.name);
  private worker: RecoveryWorker | undefined;
  private starting: Promise<void> | undefined;
  private stopping = false;

  constructor(
    @Inject(RECOVERY_WORKER_ENABLED) private readonly enabled: boolean,
    @Inject(RECOVERY_ACTIVITIES) private readonly activities: object,
    @Inject(TEMPORAL_OPTIONS) private readonly temporal: TemporalOptions,
  ) {}

  onApplicationBootstrap(): void {
    if (this.enabled) this.starting = this.start(this.temporal);
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
            : { workflowsPath: require.resolve('../workflows') },
          activities: this.activities,
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
