import {
  type BeforeApplicationShutdown,
  type DynamicModule,
  Global,
  Inject,
  Injectable,
  Logger,
  Module,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { ScheduledPass } from '@lib/runtime';
import { GUARD_SETTINGS, type GuardSettings } from './guard-settings';
import { PendingChangesService } from './pending-changes.service';

/** Applies AntiNuke changes whose delay has passed, every `pendingChangesIntervalMs`, on every replica. */
@Injectable()
export class PendingChangesSchedule implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(PendingChangesSchedule.name);
  private readonly pass: ScheduledPass;

  constructor(
    scheduler: SchedulerRegistry,
    private readonly changes: PendingChangesService,
    @Inject(GUARD_SETTINGS) private readonly settings: GuardSettings,
  ) {
    this.pass = new ScheduledPass(scheduler, PendingChangesSchedule.name, async () => {
      const applied = await this.changes.applyDue();
      if (applied > 0) this.logger.log({ applied }, 'pending antinuke changes applied');
    });
  }

  onApplicationBootstrap(): void {
    this.pass.every(this.settings.pendingChangesIntervalMs);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.pass.stop();
  }
}

/**
 * The delays that guard AntiNuke and snapshots from managers other than the owner (GUARD_SETTINGS,
 * for every module), and the pass applying due pending changes.
 */
@Global()
@Module({})
export class GuardModule {
  static forRoot(settings: GuardSettings): DynamicModule {
    return {
      module: GuardModule,
      providers: [{ provide: GUARD_SETTINGS, useValue: settings }, PendingChangesSchedule],
      exports: [GUARD_SETTINGS],
    };
  }
}
