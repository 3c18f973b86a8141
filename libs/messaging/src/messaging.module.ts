import {
  type BeforeApplicationShutdown,
  type DynamicModule,
  Inject,
  Module,
  type ModuleMetadata,
  type OnApplicationBootstrap,
  Optional,
  type Provider,
  type Type,
} from '@nestjs/common';
import type { Topic } from '@lib/contracts';
import { EVENT_PUBLISHER, OutboxModule, type OutboxModuleOptions } from '@lib/outbox';
import { MESSAGE_TRANSPORT, type ReadinessCheck } from '@lib/runtime';
import type { Admin } from 'kafkajs';
import { DataSource } from 'typeorm';
import { EventConsumer, eventConsumerController } from './event-consumer';
import type { EventHandler } from './event-handler';
import { EventProcessor } from './event-processor';
import { InProcessEventPublisher } from './in-process-event-bus';
import { InProcessEventServer } from './in-process-event.server';
import { checkKafka, createKafka, ensureTopics, KafkaClient, type KafkaSecurity } from './kafka';
import { KafkaEventServer } from './kafka-event.server';
import { KafkaEventPublisher } from './kafka-event.publisher';

export const EVENT_HANDLERS = Symbol('EVENT_HANDLERS');

/** The EVENT_HANDLERS provider: the service's consumer group applies each event through these. */
export function eventHandlers(...handlers: Type<EventHandler>[]): Provider<EventHandler[]> {
  return {
    provide: EVENT_HANDLERS,
    inject: handlers,
    useFactory: (...instances: EventHandler[]) => instances,
  };
}
const KAFKA_ADMIN = Symbol('KAFKA_ADMIN');
/** The outbox relay's publisher for the configured transport. */
export const MESSAGING_PUBLISHER = Symbol('MESSAGING_PUBLISHER');
/** The readiness check of the transport (Kafka answers; in-process is always ready). */
export const MESSAGING_READINESS = Symbol('MESSAGING_READINESS');

export type TransportOptions =
  | {
      transport?: 'kafka';
      brokers: string;
      /** SASL/SCRAM and TLS towards the brokers; none for the local test broker. */
      security?: KafkaSecurity;
      /** Create missing domain topics at start; false where the platform declares them. */
      createTopics?: boolean;
      /** The prefix of every topic and consumer group name (KAFKA_NAMESPACE); none by default. */
      namespace?: string;
    }
  /** Standalone mode: every context in this process, events straight from the outbox relays. */
  | { transport: 'in-process' };

/** The KafkaEnv settings transportOf reads. */
export interface TransportEnv {
  EVENT_TRANSPORT: 'kafka' | 'in-process';
  KAFKA_BROKERS: string;
  KAFKA_SASL_MECHANISM?: 'scram-sha-256' | 'scram-sha-512';
  KAFKA_SASL_USERNAME?: string;
  KAFKA_SASL_PASSWORD?: string;
  KAFKA_TLS?: boolean;
  KAFKA_CREATE_TOPICS?: boolean;
  KAFKA_NAMESPACE?: string;
}

/** The transport options from an app's validated environment (KafkaEnv). */
export function transportOf(env: TransportEnv): TransportOptions {
  if (env.EVENT_TRANSPORT === 'in-process') return { transport: 'in-process' };
  const {
    KAFKA_SASL_MECHANISM: mechanism,
    KAFKA_SASL_USERNAME: username,
    KAFKA_SASL_PASSWORD: password,
  } = env;
  let sasl: KafkaSecurity['sasl'];
  if (mechanism) {
    // KafkaEnv already requires both; checked here too so no env object logs in as ''.
    if (!username || !password) {
      throw new Error('KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD must be set with KAFKA_SASL_MECHANISM');
    }
    sasl = { mechanism, username, password };
  }
  return {
    transport: 'kafka',
    brokers: env.KAFKA_BROKERS,
    security: { sasl, tls: env.KAFKA_TLS ?? false },
    createTopics: env.KAFKA_CREATE_TOPICS ?? true,
    namespace: env.KAFKA_NAMESPACE ?? '',
  };
}

export type MessagingModuleOptions = {
  clientId: string;
  /** Schema holding the service's processed_events. */
  schema: string;
  /** Consumer group and topics, for services that consume. */
  consume?: { groupId: string; topics: readonly Topic[] };
} & TransportOptions;

const OPTIONS = Symbol('MessagingModuleOptions');

/**
 * Domain events for a service: the outbox publisher, and the consumer group when it consumes. Kafka
 * in the distributed deployment; the process's in-process bus in standalone mode.
 *
 * A consuming service's group is an `@EventPattern` controller (eventConsumerController) on a Nest
 * microservice transport, provided as MESSAGE_TRANSPORT: the app's bootstrap (libs/runtime)
 * connects it to the app (a hybrid application) and starts it once the app is initialised, so the
 * topics exist (ensureTopics, below) before anything is consumed; the app's close stops it.
 */
@Module({})
export class MessagingModule implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(
    @Inject(OPTIONS) private readonly options: MessagingModuleOptions,
    // Not used since the consumer group moved to the transport; kept where callers pass it.
    _dataSource: DataSource,
    @Optional() @Inject(KafkaClient) private readonly kafka: KafkaClient | undefined,
    @Optional() @Inject(KAFKA_ADMIN) private readonly admin: Admin | undefined,
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
    const transport: Provider[] =
      options.transport === 'in-process'
        ? [
            { provide: MESSAGING_PUBLISHER, useFactory: () => new InProcessEventPublisher() },
            {
              provide: MESSAGING_READINESS,
              useValue: { name: 'events', check: () => Promise.resolve() } satisfies ReadinessCheck,
            },
          ]
        : [
            {
              provide: KafkaClient,
              useValue: createKafka(options.brokers, options.clientId, options.security, options.namespace),
            },
            {
              provide: KAFKA_ADMIN,
              inject: [KafkaClient],
              useFactory: (kafka: KafkaClient) => kafka.admin(),
            },
            {
              provide: MESSAGING_PUBLISHER,
              inject: [KafkaClient],
              useFactory: (kafka: KafkaClient) => new KafkaEventPublisher(kafka),
            },
            {
              provide: MESSAGING_READINESS,
              inject: [KAFKA_ADMIN],
              useFactory: (admin: Admin): ReadinessCheck => ({
                name: 'kafka',
                check: () => checkKafka(admin),
              }),
            },
          ];
    const { consume } = options;
    const consumer: Provider[] = consume
      ? [
          {
            provide: EventProcessor,
            inject: [DataSource, EVENT_HANDLERS],
            useFactory: (dataSource: DataSource, eventHandlers: EventHandler[]) =>
              new EventProcessor(dataSource, options.schema, eventHandlers),
          },
          {
            provide: EventConsumer,
            inject: [EventProcessor],
            useFactory: (processor: EventProcessor) => new EventConsumer(processor, consume.groupId),
          },
          options.transport === 'in-process'
            ? { provide: MESSAGE_TRANSPORT, useFactory: () => new InProcessEventServer(consume.groupId) }
            : {
                provide: MESSAGE_TRANSPORT,
                inject: [KafkaClient],
                useFactory: (kafka: KafkaClient) => new KafkaEventServer(kafka, { groupId: consume.groupId }),
              },
        ]
      : [];
    const controllers: Type[] = consume ? [eventConsumerController(consume.topics)] : [];
    return {
      module: MessagingModule,
      global: true,
      imports,
      controllers,
      providers: [{ provide: OPTIONS, useValue: options }, ...transport, ...consumer, ...handlers],
      exports:
        options.transport === 'in-process'
          ? [MESSAGING_PUBLISHER, MESSAGING_READINESS]
          : [KafkaClient, MESSAGING_PUBLISHER, MESSAGING_READINESS],
    };
  }

  /**
   * The service's outbox with its relay in this process, publishing through this module's
   * transport (Kafka, or the in-process bus).
   */
  static relayedOutbox(options: Omit<OutboxModuleOptions, 'relay' | 'publisher'>): DynamicModule {
    return OutboxModule.forService({
      ...options,
      relay: true,
      publisher: { provide: EVENT_PUBLISHER, useExisting: MESSAGING_PUBLISHER },
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.options.transport === 'in-process') return;
    await this.admin!.connect();
    if (this.options.createTopics !== false) {
      await ensureTopics(this.kafka!).catch((error: unknown) => {
        // A SASL user may not create topics (nor see those it may not use): say what to set.
        throw new Error(
          `creating the domain topics failed (${error instanceof Error ? error.message : String(error)}); ` +
            'where the platform declares them, set KAFKA_CREATE_TOPICS=false',
          { cause: error },
        );
      });
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.admin?.disconnect().catch(() => undefined);
  }
}
