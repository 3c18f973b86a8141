import {
  type BeforeApplicationShutdown,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { ScheduledPass } from '@lib/runtime';
import { LockdownRepository } from './lockdown.repository';
import { LockdownService } from './lockdown.service';

/** How often lockdowns whose time is up are looked for: a lockdown lifts at most this late. */
export const LOCKDOWN_LIFT_INTERVAL_MS = 5_000;
const BATCH = 50;

/**
 * Lifts each lockdown when its stored `lockdown_until` has passed, so a lockdown outlives a
 * restart of every process and still ends on time. Several processes may look at once: the
 * platform writes give back the same thing twice, and only one marks it lifted and tells.
 */
@Injectable()
export class LockdownLifter implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(LockdownLifter.name);
  private readonly pass: ScheduledPass;

  constructor(
    scheduler: SchedulerRegistry,
    private readonly lockdowns: LockdownRepository,
    private readonly service: LockdownService,
  ) {
    this.pass = new ScheduledPass(scheduler, LockdownLifter.name, () => this.liftDue());
  }

  onApplicationBootstrap(): void {
    this.pass.every(LOCKDOWN_LIFT_INTERVAL_MS, { now: true });
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.pass.stop();
  }

  /** One pass: every lockdown due, each on its own (one the platform refuses waits for the next pass). */
  async liftDue(): Promise<void> {
    for (const row of await this.lockdowns.due(BATCH)) {
      if (this.pass.isStopped) return;
      await this.service.lift(row, { by: null, reason: 'expired' }).catch((error: unknown) => {
        this.logger.error(
          { err: error, guild_id: row.guild_id, lockdown_id: row.id },
          'lockdown could not be lifted',
        );
      });
    }
  }
}
