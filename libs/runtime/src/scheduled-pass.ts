import { Logger } from '@nestjs/common';
import type { SchedulerRegistry } from '@nestjs/schedule';
import { CronJob } from 'cron';

/**
 * Periodic work on @nestjs/schedule's registry: an interval or a cron expression, listed under its
 * name in the app's SchedulerRegistry like every other job. A pass never overlaps the previous one
 * (a tick while a pass runs is skipped), a failed pass is logged and the next tick still comes, and
 * `stop()` (from the owner's shutdown hook) unschedules it and waits for the pass in flight.
 *
 * A class used outside a Nest application (a test, a bench, standalone mode's own process) passes
 * a `new SchedulerRegistry()` of its own: the same behaviour, listed where nobody else looks.
 */
export class ScheduledPass {
  private readonly logger: Logger;
  private running: Promise<void> | undefined;
  private stopped = false;
  /** What this pass put on the registry, to take it off again at stop. */
  private registered: 'interval' | 'cron' | undefined;

  constructor(
    private readonly registry: SchedulerRegistry,
    readonly name: string,
    private readonly pass: () => Promise<void>,
  ) {
    this.logger = new Logger(name);
  }

  /** True once `stop()` was called: a long pass checks it to end early. */
  get isStopped(): boolean {
    return this.stopped;
  }

  /**
   * A pass every `intervalMs`; with `now`, the first one at once. With `unref`, the timer alone does
   * not keep the process alive: housekeeping of an object whose owner may forget to close it.
   */
  every(intervalMs: number, { now = false, unref = false }: { now?: boolean; unref?: boolean } = {}): void {
    const timer = setInterval(() => void this.runNow(), intervalMs);
    if (unref) timer.unref();
    this.registry.addInterval(this.name, timer);
    this.registered = 'interval';
    if (now) void this.runNow();
  }

  /** A pass on each tick of a cron expression, in UTC. */
  cron(expression: string): void {
    const job = CronJob.from({ cronTime: expression, onTick: () => void this.runNow(), timeZone: 'UTC' });
    this.registry.addCronJob(this.name, job);
    this.registered = 'cron';
    job.start();
  }

  /** A pass now, unless one is running: then that one's end. Never throws. */
  runNow(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    // Through an executor: a pass that throws before its first await fails like any other.
    this.running ??= new Promise<void>((resolve) => resolve(this.pass()))
      .catch((error: unknown) => this.logger.error({ err: String(error) }, 'scheduled pass failed'))
      .finally(() => (this.running = undefined));
    return this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    // The scheduler's own shutdown may have cleared it already.
    if (this.registered === 'interval' && this.registry.doesExist('interval', this.name)) {
      this.registry.deleteInterval(this.name);
    }
    if (this.registered === 'cron' && this.registry.doesExist('cron', this.name)) {
      this.registry.deleteCronJob(this.name);
    }
    this.registered = undefined;
    await this.running;
  }
}
