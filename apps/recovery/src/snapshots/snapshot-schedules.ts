import {
  type BeforeApplicationShutdown,
  type DynamicModule,
  Inject,
  Injectable,
  Module,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { ScheduledPass } from '@lib/runtime';
import { ScheduledSnapshotsJob } from './scheduled-snapshots.job';
import { SnapshotRetentionJob } from './snapshot-retention.job';
import { SnapshotsModule } from './snapshots.module';

export interface SnapshotScheduleSettings {
  /** How often the scheduled-snapshot queue is planned and worked (SCHEDULED_SNAPSHOTS_INTERVAL_MS). */
  scheduledSnapshotsIntervalMs: number;
  /** When snapshot retention runs, in UTC (SNAPSHOT_RETENTION_CRON). */
  retentionCron: string;
}
const SNAPSHOT_SCHEDULE_SETTINGS = Symbol('SNAPSHOT_SCHEDULE_SETTINGS');

/**
 * Puts the snapshot jobs on the app's scheduler, on the schedules the settings give: the daily
 * snapshot queue on an interval, retention on a cron. Each pass never overlaps the previous one,
 * and shutdown waits for the pass in flight.
 */
@Injectable()
export class SnapshotSchedules implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly passes: ScheduledPass[];

  constructor(
    scheduler: SchedulerRegistry,
    scheduled: ScheduledSnapshotsJob,
    retention: SnapshotRetentionJob,
    @Inject(SNAPSHOT_SCHEDULE_SETTINGS) private readonly settings: SnapshotScheduleSettings,
  ) {
    this.passes = [
      new ScheduledPass(scheduler, ScheduledSnapshotsJob.name, () => scheduled.tick()),
      new ScheduledPass(scheduler, SnapshotRetentionJob.name, () => retention.nightly()),
    ];
  }

  onApplicationBootstrap(): void {
    const [scheduled, retention] = this.passes;
    scheduled.every(this.settings.scheduledSnapshotsIntervalMs);
    retention.cron(this.settings.retentionCron);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all(this.passes.map((pass) => pass.stop()));
  }
}

@Module({})
export class SnapshotSchedulesModule {
  static forRoot(settings: SnapshotScheduleSettings): DynamicModule {
    return {
      module: SnapshotSchedulesModule,
      imports: [SnapshotsModule],
      providers: [{ provide: SNAPSHOT_SCHEDULE_SETTINGS, useValue: settings }, SnapshotSchedules],
    };
  }
}
