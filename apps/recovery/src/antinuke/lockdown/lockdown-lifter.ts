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
/** A lockdown the platform refused to lift is tried again after this, doubling up to the longest. */
export const LIFT_RETRY_FIRST_MS = 30_000;
export const LIFT_RETRY_LONGEST_MS = 30 * 60_000;

/**
 * Lifts each lockdown when its stored `lockdown_until` has passed, so a lockdown outlives a
 * restart of every process and still ends on time. Several processes may look at once: the
 * platform writes give back the same thing twice, and only one marks it lifted and tells.
 */
@Injectable()
export class LockdownLifter implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(LockdownLifter.name);
  private readonly pass: ScheduledPass;
  /**
   * Lockdowns the platform refused to lift, and when to try each again: every pass spends the bot's
   * requests, which a refusal that comes back each time (the guild gone, a permission lost) would
   * take from everything else the bot does, containment included. Per process; a restart tries at once.
   */
  private readonly refused = new Map<string, { at: number; waitMs: number }>();

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
    const now = Date.now();
    for (const [id, refused] of this.refused) {
      // Not due for a long while since its retry came: lifted elsewhere, or its guild left.
      if (now > refused.at + LIFT_RETRY_LONGEST_MS) this.refused.delete(id);
    }
    const later = [...this.refused].filter(([, refused]) => now < refused.at).map(([id]) => id);
    for (const row of await this.lockdowns.due(BATCH, later)) {
      if (this.pass.isStopped) return;
      const refused = this.refused.get(row.id);
      try {
        await this.service.lift(row, { by: null, reason: 'expired' });
        this.refused.delete(row.id);
      } catch (error) {
        const waitMs = refused ? Math.min(refused.waitMs * 2, LIFT_RETRY_LONGEST_MS) : LIFT_RETRY_FIRST_MS;
        this.refused.set(row.id, { at: Date.now() + waitMs, waitMs });
        this.logger.error(
          { err: error, guild_id: row.guild_id, lockdown_id: row.id, retry_in_ms: waitMs },
          'lockdown could not be lifted',
        );
      }
    }
  }
}
