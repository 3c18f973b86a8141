import { Logger } from '@nestjs/common';
import type { DomainEvent } from '@lib/contracts';
import type { EventPublisher, OutboxMessage } from '@lib/outbox';
import { currentService, runAsService } from '@lib/runtime';
import { parseEnvelope } from './envelope.parser';

export type MessageObserver = (message: OutboxMessage) => void;

/**
 * What applies a group's batches: an EventProcessor, or the transport that hands them to the app's
 * `@EventPattern` handler (InProcessEventServer), which gives them to its EventProcessor.
 */
export interface EventSink {
  process(events: readonly DomainEvent[]): Promise<void>;
  recordMalformed(consumer: string, reference: string, reason: string): Promise<void>;
}

/** A consumer group of the process: the topics it reads and what applies them. */
export interface InProcessSubscription {
  groupId: string;
  topics: readonly string[];
  processor: EventSink;
}

/**
 * Standalone mode's transport (docs/decisions/standalone-mode.md): the outbox relays of every context in this
 * process hand their batches here, and each consumer group applies them before the relay marks
 * the rows sent. The outbox table is the durable log: a group that fails makes `deliver` throw, the
 * relay rolls its claim back and retries later, and the groups that had already applied the batch
 * skip it then by event id (the processor's processed_events), as after a Kafka redelivery.
 *
 * While the process is still assembling its contexts the bus is held: deliveries wait, so an event
 * relayed before its consumer subscribed is not marked sent unread.
 */
export class InProcessEventBus {
  private readonly logger = new Logger(InProcessEventBus.name);
  private readonly subscriptions = new Set<InProcessSubscription & { service?: string }>();
  private readonly observers = new Set<{ topics: readonly string[]; listener: MessageObserver }>();
  private released: Promise<void> = Promise.resolve();
  private release: (() => void) | undefined;

  /** Deliveries wait until `open()`; call before the contexts start their relays. */
  hold(): void {
    if (this.release) return;
    this.released = new Promise((resolve) => {
      this.release = resolve;
    });
  }

  open(): void {
    this.release?.();
    this.release = undefined;
  }

  /** The group's batches are applied as the work of the service that subscribed (its logs name it). */
  subscribe(subscription: InProcessSubscription): () => void {
    const owned = { ...subscription, service: currentService() };
    this.subscriptions.add(owned);
    return () => this.subscriptions.delete(owned);
  }

  /**
   * Hears every message of `topics` as it is delivered, like a Kafka consumer in a group of its
   * own that never commits: for effects that are per process and harmless twice (dropping a cache).
   */
  observe(topics: readonly string[], listener: MessageObserver): () => void {
    const observer = { topics, listener };
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  async deliver(messages: readonly OutboxMessage[]): Promise<void> {
    await this.released;
    for (const { topics, listener } of this.observers) {
      for (const message of messages) if (topics.includes(message.topic)) listener(message);
    }
    const failures: unknown[] = [];
    for (const subscription of this.subscriptions) {
      try {
        const apply = () => this.deliverTo(subscription, messages);
        await (subscription.service ? runAsService(subscription.service, apply) : apply());
      } catch (error) {
        // The other groups still get the batch now; this one gets it again on the relay's retry.
        this.logger.warn(
          { group: subscription.groupId, err: error instanceof Error ? error.message : String(error) },
          'in-process delivery failed; the relay will retry',
        );
        failures.push(error);
      }
    }
    if (failures.length > 0) {
      throw new Error(`${failures.length} consumer group(s) could not apply the batch`, {
        cause: failures[0],
      });
    }
  }

  private async deliverTo(
    subscription: InProcessSubscription,
    messages: readonly OutboxMessage[],
  ): Promise<void> {
    const events: DomainEvent[] = [];
    for (const message of messages) {
      if (!subscription.topics.includes(message.topic)) continue;
      const parsed = parseEnvelope(message.envelope);
      if ('event' in parsed) events.push(parsed.event);
      else
        await subscription.processor.recordMalformed(
          subscription.groupId,
          `outbox:${message.topic}/${message.id}`,
          parsed.error,
        );
    }
    if (events.length > 0) await subscription.processor.process(events);
  }
}

/** The process's one bus: in-process transport means every context of this process shares it. */
export const inProcessEventBus = new InProcessEventBus();

/** The outbox relay's publisher in standalone mode. */
export class InProcessEventPublisher implements EventPublisher {
  constructor(private readonly bus: InProcessEventBus = inProcessEventBus) {}

  publish(messages: OutboxMessage[]): Promise<void> {
    return this.bus.deliver(messages);
  }
}
