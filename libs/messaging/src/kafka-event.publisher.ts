import { KAFKA_HEADER_EVENT_ID, KAFKA_HEADER_EVENT_TYPE } from '@lib/contracts';
import type { EventPublisher, OutboxMessage } from '@lib/outbox';
import { type Kafka, Partitioners, type Producer, type TopicMessages } from 'kafkajs';

/** Publishes outbox rows to Kafka: key = guild id, headers event-id and event-type, acks from all replicas. */
export class KafkaEventPublisher implements EventPublisher {
  private readonly producer: Producer;
  private connected: Promise<void> | undefined;

  constructor(kafka: Kafka) {
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
        topicMessages = { topic: message.topic, messages: [] };
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
