import type { SchedulerRegistry } from '@nestjs/schedule';

/**
 * The pending retry of something that failed (a reconnect, a round after an error), as a one-shot
 * timeout listed under its name in the app's SchedulerRegistry, beside the periodic passes. A
 * retry loop is written as "on failure, schedule the next try" rather than as a loop that sleeps,
 * so at most one try waits at any time, the registry shows it, and `cancel()` from the owner's
 * shutdown hook leaves nothing pending. The scheduler clears its timeouts at shutdown too; a retry
 * cleared that way simply never fires, and nobody waits on it.
 *
 * Like ScheduledPass, a class used outside a Nest application passes a `new SchedulerRegistry()`
 * of its own.
 */
export class RetryTimer {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly registry: SchedulerRegistry,
    readonly name: string,
  ) {}

  /** True while a retry waits to fire. */
  get pending(): boolean {
    return this.timer !== undefined && this.listed(this.timer);
  }

  /** Calls `retry` once after `delayMs`, in place of any retry still pending. */
  schedule(delayMs: number, retry: () => void): void {
    this.cancel();
    const timer = setTimeout(() => {
      this.forget(timer);
      retry();
    }, delayMs);
    this.timer = timer;
    this.registry.addTimeout(this.name, timer);
  }

  /** Drops the pending retry, if any. */
  cancel(): void {
    if (this.timer) this.forget(this.timer);
  }

  private forget(timer: NodeJS.Timeout): void {
    clearTimeout(timer);
    // The scheduler's own shutdown may have taken it off already.
    if (this.listed(timer)) this.registry.deleteTimeout(this.name);
    if (this.timer === timer) this.timer = undefined;
  }

  private listed(timer: NodeJS.Timeout): boolean {
    return this.registry.doesExist('timeout', this.name) && this.registry.getTimeout(this.name) === timer;
  }
}
