import {
  type BeforeApplicationShutdown,
  type DynamicModule,
  Inject,
  Module,
  type ModuleMetadata,
  type OnApplicationBootstrap,
  Optional,
  type Provider,
} from '@nestjs/common';
import type { Topic } from '@lib/contracts';
import { EVENT_PUBLISHER } from '@lib/outbox';
import { type Admin, Kafka } from 'kafkajs';
import { DataSource } from 'typeorm';
import type { EventHandler } from './event-handler';
import { EventProcessor } from './event-processor';
import { createKafka, ensureTopics } from './kafka';
import { KafkaEventConsumer } from './kafka-event.consumer';
import { KafkaEventPublisher } from './kafka-event.publisher';

export const EVENT_HANDLERS = Symbol('EVENT_HANDLERS');
export const KAFKA_ADMIN = Symbol('KAFKA_ADMIN');

export interface MessagingModuleOptions {
  brokers: string;
  clientId: string;
  /** Schema holding the service's processed_events. */
  schema: string;
  /** Consumer group and topics, for services that consume. */
  consume?: { groupId: string; topics: readonly Topic[] };
}

const OPTIONS = Symbol('MessagingModuleOptions');

/** Kafka for a service: the outbox publisher, and the consumer group when it consumes. */
@Module({})
export class MessagingModule implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private consumer: KafkaEventConsumer | undefined;

  constructor(
    @Inject(OPTIONS) private readonly options: MessagingModuleOptions,
    private readonly kafka: Kafka,
    @Inject(KAFKA_ADMIN) private readonly admin: Admin,
    private readonly dataSource: DataSource,
    @Optional() @Inject(EVENT_HANDLERS) private readonly handlers: EventHandler[] = [],
  ) {}

  /**
   * `handlers` must include the EVENT_HANDLERS provider; `imports` are the feature modules the
   * handlers come from, so the handlers share their instances with the rest of the app.
   */
  static forService(
    options: MessagingModuleOptions,
    handlers: Provider[] = [],
    imports: NonNullable<ModuleMetadata['imports']> = [],
  ): DynamicModule {
    return {
      module: MessagingModule,
      global: true,
      imports,
      providers: [
        { provide: OPTIONS, useValue: options },
        { provide: Kafka, useValue: createKafka(options.brokers, options.clientId) },
        { provide: KAFKA_ADMIN, inject: [Kafka], useFactory: (kafka: Kafka) => kafka.admin() },
        ...handlers,
      ],
      exports: [Kafka, KAFKA_ADMIN],
    };
  }

  /** The outbox publisher provider, for OutboxModule.forService({ publisher }). */
  static publisherProvider(): Provider {
    return {
      provide: EVENT_PUBLISHER,
      inject: [Kafka],
      useFactory: (kafka: Kafka) => new KafkaEventPublisher(kafka),
    };
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.admin.connect();
    await ensureTopics(this.kafka);
    if (this.options.consume) {
      const processor = new EventProcessor(this.dataSource, this.options.schema, this.handlers);
      this.consumer = new KafkaEventConsumer({ kafka: this.kafka, processor, ...this.options.consume });
      await this.consumer.start();
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.consumer?.stop();
    await this.admin.disconnect().catch(() => undefined);
  }
}
