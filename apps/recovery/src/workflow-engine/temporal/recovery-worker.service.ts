import { RetryTimer } from '@lib/runtime';
import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  Optional,
} from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
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
 * HTTP side does not wait for it, and the worker tries again every 5 s while Temporal is not
 * reachable yet (the next try waits on the app's scheduler as `recovery-worker-start`). Shutdown
 * drops a try still waiting and lets running activities end.
 */
@Injectable()
export class RecoveryWorkerService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(RecoveryWorkerService.name);
  private worker: RecoveryWorker | undefined;
  /** The try in flight to create and run the worker; shutdown waits for it. */
  private starting: Promise<void> | undefined;
  private stopping = false;
  /** The next try after one failed. */
  private readonly retry: RetryTimer;

  constructor(
    @Inject(RECOVERY_WORKER_ENABLED) private readonly enabled: boolean,
    @Inject(RECOVERY_ACTIVITIES) private readonly activities: object,
    @Inject(TEMPORAL_OPTIONS) private readonly temporal: TemporalOptions,
    /** The app's (ScheduleModule); a test's service gets one of its own. */
    @Optional() scheduler: SchedulerRegistry = new SchedulerRegistry(),
  ) {
    this.retry = new RetryTimer(scheduler, 'recovery-worker-start');
  }

  onApplicationBootstrap(): void {
    if (this.enabled) this.starting = this.start(this.temporal);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    this.retry.cancel();
    await this.starting;
    await this.worker?.shutdown();
  }

  /** One try; a failed one schedules the next. */
  private async start(temporal: TemporalOptions): Promise<void> {
    try {
      this.worker = await createRecoveryWorker({
        address: temporal.address,
        namespace: temporal.namespace,
        taskQueue: temporal.taskQueue,
        workflows: temporal.workflowBundlePath
          ? { workflowBundle: { codePath: temporal.workflowBundlePath } }
          : { workflowsPath: require.resolve('../worker-bundle') },
        activities: this.activities,
      });
      if (this.stopping) return;
      this.worker
        .run()
        .catch((error: unknown) => this.logger.error({ err: error }, 'recovery worker stopped'));
      this.logger.log('recovery worker running');
    } catch (error) {
      if (this.stopping) return;
      this.logger.warn(
        { err: error },
        `recovery worker could not start; retrying in ${RETRY_CONNECT_MS / 1000} s`,
      );
      this.retry.schedule(RETRY_CONNECT_MS, () => {
        this.starting = this.start(temporal);
      });
    }
  }
}
