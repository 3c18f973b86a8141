import {
  type BeforeApplicationShutdown,
  type DynamicModule,
  Inject,
  Module,
  type OnApplicationBootstrap,
  type Provider,
} from '@nestjs/common';
import type { Producer } from '@lib/contracts';
import { SchedulerRegistry } from '@nestjs/schedule';
import { DataSource } from 'typeorm';
import type { EventPublisher } from './event-publisher';
import { OutboxRelay } from './outbox.relay';
import { OutboxWriter } from './outbox.writer';

export const EVENT_PUBLISHER = Symbol('EVENT_PUBLISHER');

export interface OutboxModuleOptions {
  schema: string;
  producer: Producer;
  databaseUrl: string;
  /** Hours a sent row is kept (OUTBOX_RETENTION_HOURS): the in-process bus may redeliver it until then. */
  retentionHours: number;
  /** Run the relay in this process (false for processes that only write, e.g. a worker-only role). */
  relay: boolean;
  /** Provider of EVENT_PUBLISHER (Kafka or in-process). */
  publisher: Provider<EventPublisher>;
}

const OPTIONS = Symbol('OutboxModuleOptions');

@Module({})
export class OutboxModule implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(
    @Inject(OPTIONS) private readonly options: OutboxModuleOptions,
    private readonly relay: OutboxRelay,
    @Inject(EVENT_PUBLISHER) private readonly publisher: EventPublisher,
  ) {}

  static forService(options: OutboxModuleOptions): DynamicModule {
    return {
      module: OutboxModule,
      global: true,
      providers: [
        { provide: OPTIONS, useValue: options },
        options.publisher,
        { provide: OutboxWriter, useValue: new OutboxWriter(options.schema, options.producer) },
        {
          provide: OutboxRelay,
          // The relay's passes go on the app's scheduler (ScheduleModule.forRoot() in its AppModule).
          inject: [DataSource, EVENT_PUBLISHER, SchedulerRegistry],
          useFactory: (dataSource: DataSource, publisher: EventPublisher, scheduler: SchedulerRegistry) =>
            new OutboxRelay({
              schema: options.schema,
              dataSource,
              databaseUrl: options.databaseUrl,
              retentionHours: options.retentionHours,
              publisher,
              scheduler,
            }),
        },
      ],
      exports: [OutboxWriter, OutboxRelay],
    };
  }

  onApplicationBootstrap(): void {
    if (this.options.relay) this.relay.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.relay.stop();
    await this.publisher.close?.().catch(() => undefined);
  }
}
