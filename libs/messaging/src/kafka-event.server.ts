import { BaseRpcContext, type KafkaContext, ServerKafka } from '@nestjs/microservices';
import type { Consumer, EachBatchPayload } from 'kafkajs';
import { Gauge } from 'prom-client';
import { EventConsumer } from './event-consumer';
import type { EventProcessor } from './event-processor';
import type { KafkaClient } from './kafka';

/** Consumer lag: messages behind the partition's end after each batch this process handled. */
export const kafkaConsumerLag = new Gauge({
  name: 'kafka_consumer_lag',
  help: 'Messages the consumer group is behind the end of the partition, as of its last batch here',
  labelNames: ['group', 'topic', 'partition'],
});

/**
 * The `@Ctx()` of a handler called by KafkaEventServer: one batch of one partition, as kafkajs
 * hands it (messages as received, bytes), with the batch's offset and heartbeat controls.
 */
export class KafkaBatchContext extends BaseRpcContext<[EachBatchPayload]> {
  getPayload(): EachBatchPayload {
    return this.args[0];
  }
}

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
 * (eventConsumerController) receive its messages a batch at a time (one partition's fetch, in
 * partition order), three partitions at once. Offsets are committed by the handler, after the
 * apply committed (EventConsumer), never automatically. A handler's error reaches kafkajs, which
 * fetches the batch again (retries, then a restart of the consumer: restartOnFailure).
 *
 * What Nest's options cannot say, hence the subclass:
 * - Batches. Nest's ServerKafka always runs kafkajs with `eachMessage` (its bindEvents sets it over
 *   any `run` option; kafka-event.server.spec.ts shows it), so each event would be one transaction
 *   and one offset commit: the outbox benchmark's consumer fell from ~5,200 to ~1,100 events/s
 *   (docs/testing.md). bindEvents is overridden, and only it: it subscribes to the registered
 *   patterns as Nest does, runs with `eachBatch`, and passes each batch to the topic's handler
 *   through Nest's own handleEvent, so the handler's filters and interceptors still apply.
 * - The kafkajs client is the one the app already made with `kafkaConfig` (SASL/TLS, client id =
 *   the service), not a second one.
 * - The consumer-lag gauge listens to the consumer's END_BATCH_PROCESS.
 *
 * The group id is the service's, as it is (`postfixId: ''`; the Kafka ACLs name it), in the client's
 * namespace when it has one, as are the topics it subscribes to; handlers stay registered under
 * the domain topics (TOPICS), whatever the namespace. Nest's server
 * also connects a producer, for replies to request-response messages; no handler here answers
 * any, so it never writes, and a producer that does not write needs no ACL.
 */
export class KafkaEventServer extends ServerKafka {
  private readonly reportLag: boolean;

  constructor(
    private readonly kafka: KafkaClient,
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
      consumer: {
        groupId: kafka.named(groupId),
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

  /**
   * Nest's bindEvents with `eachBatch` in place of its `eachMessage` (see the class comment). A
   * batch the handler finished is resolved here, so kafkajs fetches past it; the handler commits
   * when it wants to (EventConsumer: after the apply). A batch of a partition this member lost
   * meanwhile, or one fetched before a seek, is left alone and unresolved, which is why kafkajs's
   * own resolving (eachBatchAutoResolve) is off: it would resolve those too.
   */
  override async bindEvents(consumer: Consumer): Promise<void> {
    const topics = [...this.getHandlers().keys()].map((topic) => this.kafka.named(topic));
    if (topics.length > 0) await consumer.subscribe({ ...this.options.subscribe, topics });
    await consumer.run({
      ...this.options.run,
      eachBatchAutoResolve: false,
      eachBatch: async (payload) => {
        if (!payload.isRunning() || payload.isStale() || payload.batch.isEmpty()) return;
        const topic = this.kafka.domainName(payload.batch.topic);
        // Typed for Nest's per-message KafkaContext, handleEvent only hands the context on to the
        // handler (and the processing hooks), which declares KafkaBatchContext.
        await this.handleEvent(
          topic,
          { pattern: topic, data: payload.batch.messages },
          new KafkaBatchContext([payload]) as unknown as KafkaContext,
        );
        payload.resolveOffset(payload.batch.lastOffset());
      },
    });
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
  kafka: KafkaClient;
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
        (_messages: unknown, context: KafkaBatchContext) => consumer.consume(context),
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
