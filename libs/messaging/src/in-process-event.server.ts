import { BaseRpcContext, type CustomTransportStrategy, Server } from '@nestjs/microservices';
import type { DomainEvent } from '@lib/contracts';
import { isObservable, lastValueFrom } from 'rxjs';
import { type EventSink, type InProcessEventBus, inProcessEventBus } from './in-process-event-bus';

/** One delivery of the in-process bus to a topic's handler: a relay's batch, or a message that is no event. */
export type InProcessDelivery = { topic: string } & (
  { events: readonly DomainEvent[] } | { reference: string; reason: string }
);

/** The `@Ctx()` of a handler called by the in-process transport. */
export class InProcessContext extends BaseRpcContext<[InProcessDelivery]> {
  getDelivery(): InProcessDelivery {
    return this.args[0];
  }
}

/**
 * Standalone mode's transport for the app's `@EventPattern` handlers (the same handlers Kafka
 * calls in the distributed deployment): each handled topic subscribes to the process's
 * InProcessEventBus as the consumer group, and the bus's batches for it go to the handler. The bus
 * keeps its guarantees: batches in the relay's order, and a handler's error fails the relay's round,
 * which retries it (docs/decisions/standalone-mode.md).
 */
export class InProcessEventServer extends Server implements CustomTransportStrategy {
  private readonly unsubscribes: (() => void)[] = [];

  constructor(
    private readonly groupId: string,
    private readonly bus: InProcessEventBus = inProcessEventBus,
  ) {
    super();
  }

  listen(callback: (error?: unknown) => void): void {
    for (const topic of this.getHandlers().keys()) {
      this.unsubscribes.push(
        this.bus.subscribe({ groupId: this.groupId, topics: [topic], processor: this.sinkFor(topic) }),
      );
    }
    callback();
  }

  close(): void {
    for (const unsubscribe of this.unsubscribes.splice(0)) unsubscribe();
  }

  on(): never {
    throw new Error('the in-process transport has no events to listen to');
  }

  unwrap<T>(): T {
    return this.bus as T;
  }

  private sinkFor(topic: string): EventSink {
    return {
      process: (events) => this.dispatch({ topic, events }),
      recordMalformed: (_groupId, reference, reason) => this.dispatch({ topic, reference, reason }),
    };
  }

  /** Calls the topic's handler and settles with it: its error is the bus's (Nest's own `handleEvent` would not wait). */
  private async dispatch(delivery: InProcessDelivery): Promise<void> {
    const handler = this.getHandlerByPattern(delivery.topic);
    if (!handler) throw new Error(`no @EventPattern handler for ${delivery.topic}`);
    const result: unknown = await handler(delivery, new InProcessContext([delivery]));
    if (isObservable(result)) await lastValueFrom(result, { defaultValue: undefined });
  }
}
