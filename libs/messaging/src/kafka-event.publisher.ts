import { KAFKA_HEADER_EVENT_ID, KAFKA_HEADER_EVENT_TYPE } from '@lib/contracts';
import type { EventPublisher, OutboxMessage } from '@lib/outbox';
import { Partitioners, type Producer, type TopicMessages } from 'kafkajs';
import type { KafkaClient } from './kafka';

/**
 * Publishes outbox rows to Kafka (their topic in the client's namespace): key = guild id, headers
 * event-id and event-type, acks from all replicas.
 */
export class KafkaEventPublisher implements EventPublisher {
  private readonly producer: Producer;
  private connected: Promise<void> | undefined;

  constructor(private readonly kafka: KafkaClient) {
    this.producer = kafka.producer({
      createPartitioner: Partitioners.DefaultPartitioner,
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
    });
    this.producer.on('producer.disconnect', () => {
      this.connected = undefined;
    });
  }

  async publish(messages: OutboxMessage[]): Promise<void> {
    await this.connect();
    const byTopic = new Map<string, TopicMessages>();
    for (const message of messages) {
      let topicMessages = byTopic.get(message.topic);
      if (!topicMessages) {
        topicMessages = { topic: this.kafka.named(message.topic), messages: [] };
        byTopic.set(message.topic, topicMessages);
      }
      topicMessages.messages.push({
        key: message.key,
        value: message.envelope,
        headers: { [KAFKA_HEADER_EVENT_ID]: message.id, [KAFKA_HEADER_EVENT_TYPE]: message.eventType },
      });
    }
    await this.producer.sendBatch({ topicMessages: [...byTopic.values()], acks: -1, timeout: 10_000 });
  }

  async close(): Promise<void> {
    await this.producer.disconnect();
    this.connected = undefined;
  }

  private connect(): Promise<void> {
    this.connected ??= this.producer.connect().catch((error: unknown) => {
      this.connected = undefined;
      throw error;
    });
    return this.connected;
  }
}
