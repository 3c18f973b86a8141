import { Logger } from '@nestjs/common';
import type { DomainEvent } from '@lib/contracts';
import type { Consumer, EachBatchPayload, Kafka } from 'kafkajs';
import { Gauge } from 'prom-client';
import { parseEnvelope } from './envelope.parser';
import type { EventProcessor } from './event-processor';

/** Consumer lag: messages behind the partition's end after each batch this process handled. */
export const kafkaConsumerLag = new Gauge({
  name: 'kafka_consumer_lag',
  help: 'Messages the consumer group is behind the end of the partition, as of its last batch here',
  labelNames: ['group', 'topic', 'partition'],
});

export interface KafkaEventConsumerOptions {
  kafka: Kafka;
  groupId: string;
  topics: readonly string[];
  processor: EventProcessor;
}

/**
 * One consumer group member of a service. Offsets advance only after the processor committed the
 * batch's effects, so a crash redelivers and the processor's idempotency absorbs it.
 */
export class KafkaEventConsumer {
  private readonly logger: Logger;
  private readonly consumer: Consumer;

  constructor(private readonly options: KafkaEventConsumerOptions) {
    this.logger = new Logger(`KafkaEventConsumer(${options.groupId})`);
    this.consumer = options.kafka.consumer({
      groupId: options.groupId,
      sessionTimeout: 30_000,
      heartbeatInterval: 3_000,
      maxWaitTimeInMs: 500,
      retry: {
        retries: 10,
        initialRetryTime: 300,
        maxRetryTime: 10_000,
        restartOnFailure: () => Promise.resolve(true),
      },
    });
  }

  async start(): Promise<void> {
    this.consumer.on(this.consumer.events.END_BATCH_PROCESS, ({ payload }) => {
      kafkaConsumerLag.set(
        { group: this.options.groupId, topic: payload.topic, partition: String(payload.partition) },
        Number(payload.offsetLag),
      );
    });
    await this.consumer.connect();
    await this.consumer.subscribe({ topics: [...this.options.topics], fromBeginning: true });
    await this.consumer.run({
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: 3,
      eachBatch: (payload) => this.handleBatch(payload),
    });
  }

  async stop(): Promise<void> {
    await this.consumer.disconnect();
  }

  private async handleBatch(payload: EachBatchPayload) {
    const { batch } = payload;
    if (!payload.isRunning() || payload.isStale() || batch.messages.length === 0) return;
    const events: DomainEvent[] = [];
    for (const message of batch.messages) {
      const parsed = parseEnvelope(message.value);
      if ('event' in parsed) events.push(parsed.event);
      else
        await this.options.processor.recordMalformed(
          this.options.groupId,
          `kafka:${batch.topic}/${batch.partition}/${message.offset}`,
          parsed.error,
        );
    }
    await this.options.processor.process(events);
    payload.resolveOffset(batch.lastOffset());
    await payload.heartbeat();
  }
}
