import { KAFKA_HEADER_EVENT_ID } from '@lib/contracts';
import type { KafkaClient } from '@lib/messaging';
import type { Consumer } from 'kafkajs';
import { v7 as uuidv7 } from 'uuid';
import { testKafka } from './test-kafka';
import { waitFor } from './wait';

/**
 * Reads a topic from the beginning with a fresh consumer group and counts how often each event id
 * was published. `drain` waits until the reader has reached the topic's end, so a count taken
 * after it is final.
 */
export class TopicReader {
  readonly seen = new Map<string, number>();
  private readonly consumer: Consumer;
  private readonly positions = new Map<number, bigint>();

  /** `kafka`: this worker's namespace by default; one without, to read what apps outside it write. */
  constructor(
    private readonly topic: string,
    private readonly kafka: KafkaClient = testKafka('test-reader'),
  ) {
    this.consumer = kafka.consumer({ groupId: `test-${uuidv7()}`, maxWaitTimeInMs: 200 });
  }

  async start(): Promise<void> {
    await this.consumer.connect();
    await this.consumer.subscribe({ topic: this.kafka.named(this.topic), fromBeginning: true });
    await this.consumer.run({
      eachMessage: ({ partition, message }) => {
        const id = message.headers?.[KAFKA_HEADER_EVENT_ID]?.toString();
        if (id) this.seen.set(id, (this.seen.get(id) ?? 0) + 1);
        this.positions.set(partition, BigInt(message.offset) + 1n);
        return Promise.resolve();
      },
    });
  }

  async drain(timeoutMs = 60_000): Promise<void> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      const ends = await admin.fetchTopicOffsets(this.kafka.named(this.topic));
      await waitFor(
        `${this.topic} to be read to its end`,
        () => ends.every((end) => BigInt(end.high) <= (this.positions.get(end.partition) ?? 0n)),
        { timeoutMs },
      );
    } finally {
      await admin.disconnect();
    }
  }

  async stop(): Promise<void> {
    await this.consumer.disconnect();
  }
}
