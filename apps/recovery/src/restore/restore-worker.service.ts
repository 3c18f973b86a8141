import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { ANTINUKE_ACTIVITIES } from '../antinuke/activities/antinuke.activities';
import type { AntiNukeActivities } from '../antinuke/workflows/antinuke-contract';
import { GuildRegistry } from '../guilds/guild-registry.service';
import { SnapshotService } from '../snapshots/snapshot.service';
import { LiveSyncControl } from '../sync/live-sync-control';
import { createRecoveryWorker, type RecoveryWorker } from '../temporal/recovery-worker';
import { TEMPORAL_OPTIONS, type TemporalOptions } from '../temporal/temporal.module';
import { createRestoreActivities } from './activities/restore.activities';
import { RestoreComparisons } from './restore-context';
import { RestoreJobsRepository } from './restore-jobs.repository';
import { RestoreSteps } from './restore-steps';

export const RESTORE_WORKER_ENABLED = Symbol('RESTORE_WORKER_ENABLED');
const RETRY_CONNECT_MS = 5_000;

/**
 * Runs the recovery workflows and activities in this process when RECOVERY_ROLE is `worker` or
 * `all`. The workflow code is bundled at start; the HTTP side does not wait for it, and the
 * worker keeps trying while Temporal is not reachable yet. Shutdown lets running activities end.
 */
@Injectable()
export class RestoreWorkerService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(RestoreWorkerService.name);
  private worker: RecoveryWorker | undefined;
  private starting: Promise<void> | undefined;
  private stopping = false;

  constructor(
    @Inject(RESTORE_WORKER_ENABLED) private readonly enabled: boolean,
    @Inject(TEMPORAL_OPTIONS) private readonly temporal: TemporalOptions,
    private readonly jobs: RestoreJobsRepository,
    private readonly guilds: GuildRegistry,
    private readonly comparisons: RestoreComparisons,
    private readonly steps: RestoreSteps,
    private readonly snapshots: SnapshotService,
    private readonly liveSync: LiveSyncControl,
    @Inject(ANTINUKE_ACTIVITIES) private readonly antinuke: AntiNukeActivities,
  ) {}

  onApplicationBootstrap(): void {
    if (this.enabled) this.starting = this.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    await this.starting;
    await this.worker?.shutdown();
  }

  private async start(): Promise<void> {
    while (!this.stopping) {
      try {
        this.worker = await createRecoveryWorker({
          address: this.temporal.address,
          namespace: this.temporal.namespace,
          taskQueue: this.temporal.taskQueue,
          workflows: { workflowsPath: require.resolve('./workflows') },
          activities: {
            ...createRestoreActivities({
              jobs: this.jobs,
              guilds: this.guilds,
              comparisons: this.comparisons,
              steps: this.steps,
              snapshots: this.snapshots,
              liveSync: this.liveSync,
            }),
            ...this.antinuke,
          },
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
