import { type KafkaContext, ServerKafka } from '@nestjs/microservices';
import type { Kafka } from 'kafkajs';
import { Gauge } from 'prom-client';
import { EventConsumer } from './event-consumer';
import type { EventProcessor } from './event-processor';

/** Consumer lag: messages behind the partition's end after each batch this process handled. */
export const kafkaConsumerLag = new Gauge({
  name: 'kafka_consumer_lag',
  help: 'Messages the consumer group is behind the end of the partition, as of its last batch here',
  labelNames: ['group', 'topic', 'partition'],
});

/** How a KafkaEventServer's group reads; the defaults are a service's consumer group's. */
export interface KafkaEventServerOptions {
  groupId: string;
  /**
   * Where the group starts when it has no committed offset: the earliest message (a consumer group,
   * which must see every event) or the next one (a listener that only cares from now on).
   */
  fromBeginning?: boolean;
  /** Partitions handled at once. */
  partitionsConsumedConcurrently?: number;
  maxWaitTimeInMs?: number;
  /** The kafka_consumer_lag gauge; not for groups named per process, whose series would pile up. */
  reportLag?: boolean;
}

/**
 * Nest's Kafka transport for one consumer group of a service; the app's `@EventPattern` handlers
 * (eventConsumerController) receive its messages one at a time, in partition order, three
 * partitions at once. Offsets are committed by the handler, after the apply committed
 * (EventConsumer), never automatically. A handler's error reaches kafkajs, which fetches the
 * message again (retries, then a restart of the consumer: restartOnFailure).
 *
 * Two things Nest's options cannot say, hence the subclass: the kafkajs client is the one the app
 * already made with `kafkaConfig` (SASL/TLS, client id = the service), not a second one; and the
 * consumer-lag gauge listens to the consumer's END_BATCH_PROCESS. The group id is the service's,
 * as it is (`postfixId: ''`; the Kafka ACLs name it). Nest's server also connects a producer, for
 * replies to request-response messages; no handler here answers any, so it never writes, and a
 * producer that does not write needs no ACL.
 */
export class KafkaEventServer extends ServerKafka {
  private readonly reportLag: boolean;

  constructor(
    private readonly kafka: Kafka,
    {
      groupId,
      fromBeginning = true,
      partitionsConsumedConcurrently = 3,
      maxWaitTimeInMs = 500,
      reportLag = true,
    }: KafkaEventServerOptions,
  ) {
    super({
      postfixId: '',
      // The value stays the bytes received: EventConsumer parses the envelope itself.
      parser: { keepBinary: true },
      consumer: {
        groupId,
        sessionTimeout: 30_000,
        heartbeatInterval: 3_000,
        maxWaitTimeInMs,
        retry: {
          retries: 10,
          initialRetryTime: 300,
          maxRetryTime: 10_000,
          restartOnFailure: () => Promise.resolve(true),
        },
      },
      subscribe: { fromBeginning },
      run: { autoCommit: false, partitionsConsumedConcurrently },
    });
    this.reportLag = reportLag;
  }

  /** Starts consuming outside a Nest application (listeners, the benchmark); resolves once it runs. */
  async run(): Promise<void> {
    let failure: unknown;
    // A failure to start goes to listen's callback, not to its promise.
    await this.listen((error) => {
      failure = error;
    });
    if (failure) {
      throw failure instanceof Error
        ? failure
        : new Error('the Kafka consumer did not start', { cause: failure });
    }
  }

  override createClient<T>(): T {
    return this.kafka as T;
  }

  protected override registerConsumerEventListeners(): void {
    super.registerConsumerEventListeners();
    if (!this.reportLag) return;
    const consumer = this.consumer!;
    consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) => {
      kafkaConsumerLag.set(
        { group: this.groupId, topic: payload.topic, partition: String(payload.partition) },
        Number(payload.offsetLag),
      );
    });
  }
}

export interface KafkaEventConsumerOptions {
  kafka: Kafka;
  groupId: string;
  topics: readonly string[];
  processor: EventProcessor;
}

/**
 * A consumer group outside a Nest application (the outbox benchmark, tests of the relay): the
 * same transport and the same EventConsumer as an app's `@EventPattern` handler, the handler
 * registered on the transport directly.
 */
export class KafkaEventConsumer {
  private readonly server: KafkaEventServer;

  constructor({ kafka, groupId, topics, processor }: KafkaEventConsumerOptions) {
    this.server = new KafkaEventServer(kafka, { groupId });
    const consumer = new EventConsumer(processor, groupId);
    for (const topic of topics) {
      this.server.addHandler(
        topic,
        (_value: unknown, context: KafkaContext) => consumer.consume(context),
        true,
      );
    }
  }

  start(): Promise<void> {
    return this.server.run();
  }

  stop(): Promise<void> {
    return this.server.close();
  }
}
