import type { GuildEventSource, SourceEvent } from './guild-events';

/** A gateway stand-in for unit tests: `emit` delivers events as the platform's connection would. */
export class InMemoryGuildEventSource implements GuildEventSource {
  private listener: ((event: SourceEvent) => void) | undefined;

  get started(): boolean {
    return this.listener !== undefined;
  }

  start(listener: (event: SourceEvent) => void): Promise<void> {
    this.listener = listener;
    return Promise.resolve();
  }

  stop(): Promise<void> {
    this.listener = undefined;
    return Promise.resolve();
  }

  emit(...events: SourceEvent[]): void {
    if (!this.listener) throw new Error('the source is not started');
    for (const event of events) this.listener(event);
  }
}
