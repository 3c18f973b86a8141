import { Logger } from '@nestjs/common';

/**
 * Runs `run` every `intervalMs`, counted from the end of the previous pass, so passes never
 * overlap however long one takes. A failed pass is logged and the next one still comes. `stop()`
 * cancels the next pass and waits for the one in flight (for shutdown hooks).
 */
export class PeriodicTask {
  private readonly logger: Logger;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    name: string,
    private readonly intervalMs: number,
    private readonly run: () => Promise<void>,
  ) {
    this.logger = new Logger(name);
  }

  /** True once `stop()` was called: a long pass can check it to end early. */
  get isStopped(): boolean {
    return this.stopped;
  }

  start(firstDelayMs = this.intervalMs): void {
    this.schedule(firstDelayMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.run()
        .catch((error: unknown) => this.logger.error({ err: String(error) }, 'periodic pass failed'))
        .finally(() => this.schedule(this.intervalMs));
    }, delayMs);
  }
}
