import {
  EVENT_ENVELOPE_VERSION,
  EVENT_PRODUCERS,
  type DomainEvent,
  type EventPayloads,
  type EventType,
  type Producer,
  TOPICS,
} from '@lib/contracts';
import { currentRequestId } from '@lib/runtime';
import type { EntityManager } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { OutboxRepository } from './outbox.repository';

export interface NewEvent<T extends EventType> {
  type: T;
  aggregate_type: string;
  aggregate_id: string;
  guild_id: string;
  payload: EventPayloads[T];
  occurred_at?: Date;
  correlation_id?: string | null;
}

/**
 * Appends domain events to the service's outbox inside the caller's transaction, so the event
 * exists if and only if the state change committed.
 */
export class OutboxWriter {
  private readonly outbox: OutboxRepository;

  constructor(
    schema: string,
    private readonly producer: Producer,
  ) {
    this.outbox = new OutboxRepository(schema);
  }

  async append<T extends EventType>(manager: EntityManager, event: NewEvent<T>): Promise<DomainEvent<T>> {
    const [envelope] = await this.appendAll(manager, [event]);
    return envelope;
  }

  async appendAll<T extends EventType>(
    manager: EntityManager,
    events: NewEvent<T>[],
  ): Promise<DomainEvent<T>[]> {
    if (!manager.queryRunner?.isTransactionActive) {
      throw new Error('OutboxWriter.append must run inside the transaction of the state change');
    }
    const envelopes = events.map((event) => this.envelope(event));
    if (envelopes.length === 0) return envelopes;
    await this.outbox.insert(
      manager,
      envelopes.map((envelope) => ({
        id: envelope.id,
        topic: TOPICS[this.producer],
        messageKey: envelope.guild_id,
        eventType: envelope.type,
        envelope: JSON.stringify(envelope),
      })),
    );
    return envelopes;
  }

  private envelope<T extends EventType>(event: NewEvent<T>): DomainEvent<T> {
    if (EVENT_PRODUCERS[event.type] !== this.producer) {
      throw new Error(`${event.type} is produced by ${EVENT_PRODUCERS[event.type]}, not ${this.producer}`);
    }
    return {
      id: uuidv7(),
      type: event.type,
      version: EVENT_ENVELOPE_VERSION,
      occurred_at: (event.occurred_at ?? new Date()).toISOString(),
      producer: this.producer,
      aggregate_type: event.aggregate_type,
      aggregate_id: event.aggregate_id,
      guild_id: event.guild_id,
      correlation_id: event.correlation_id ?? currentRequestId(),
      payload: event.payload,
    };
  }
}
