/** One claimed outbox row, ready to publish. `envelope` is the JSON text, published as is. */
export interface OutboxMessage {
  id: string;
  topic: string;
  key: string;
  eventType: string;
  envelope: string;
}

/**
 * Where the relay hands events: Kafka in the distributed deployment, the in-process dispatcher in
 * standalone mode. `publish` resolves only once every message is durably accepted.
 */
export interface EventPublisher {
  publish(messages: OutboxMessage[]): Promise<void>;
  /** Called once the relay has stopped. */
  close?(): Promise<void>;
}
