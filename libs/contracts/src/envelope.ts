/** Producers that own an outbox and a topic. */
export type Producer = 'recovery' | 'billing' | 'licensing';

/**
 * What travels on Kafka for every domain event (docs/decisions/events.md).
 * `payload` is typed per event in `events.ts`; the envelope never changes shape.
 */
export interface EventEnvelope<TType extends string = string, TPayload = unknown> {
  /** UUID v7; also the Kafka header `event-id` and the consumer's idempotency key. */
  id: string;
  type: TType;
  version: 1;
  /** ISO 8601 UTC time of the state change that produced the event. */
  occurred_at: string;
  producer: Producer;
  aggregate_type: string;
  aggregate_id: string;
  /** Internal guild UUID; also the Kafka message key, so one guild's events keep their order. */
  guild_id: string;
  correlation_id: string | null;
  payload: TPayload;
}

export const EVENT_ENVELOPE_VERSION = 1 as const;

export const KAFKA_HEADER_EVENT_ID = 'event-id';
export const KAFKA_HEADER_EVENT_TYPE = 'event-type';
