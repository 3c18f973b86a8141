import {
  type BeforeApplicationShutdown,
  ConfigurableModuleBuilder,
  Global,
  Inject,
  Logger,
  Module,
  type OnApplicationBootstrap,
  Optional,
} from '@nestjs/common';
import { type ServiceName, TOPICS } from '@lib/contracts';
import { InternalTokenCodec } from '@lib/identity';
import { inProcessEventBus, KafkaClient } from '@lib/messaging';
import { EntitlementsClient, type EntitlementsClientOptions } from './entitlements.client';
import { EntitlementsInvalidationListener, LICENSE_CHANGES } from './entitlements-invalidation.listener';

type ModuleOptions = Pick<EntitlementsClientOptions, 'licensingUrl' | 'ttlMs'> & {
  /** The consuming service: names the consumer group of the cache's licence-change listener. */
  service: ServiceName;
};

/** `EntitlementsModule.forService(options)`: Nest's configurable-module builder writes it. */
const { ConfigurableModuleClass, MODULE_OPTIONS_TOKEN: OPTIONS } =
  new ConfigurableModuleBuilder<ModuleOptions>().setClassMethodName('forService').build();

/**
 * Provides EntitlementsClient to a service. With Kafka in the app (MessagingModule), the client's
 * cache also listens for licence changes.
 */
@Global()
@Module({
  providers: [
    {
      provide: EntitlementsClient,
      inject: [OPTIONS, InternalTokenCodec],
      useFactory: (options: ModuleOptions, codec: InternalTokenCodec) =>
        new EntitlementsClient({ ...options, codec }),
    },
  ],
  exports: [EntitlementsClient],
})
export class EntitlementsModule
  extends ConfigurableModuleClass
  implements OnApplicationBootstrap, BeforeApplicationShutdown
{
  private readonly logger = new Logger(EntitlementsModule.name);
  private listener: EntitlementsInvalidationListener | undefined;
  private stopObserving: (() => void) | undefined;

  constructor(
    @Inject(OPTIONS) private readonly options: ModuleOptions,
    private readonly client: EntitlementsClient,
    @Optional() private readonly kafka?: KafkaClient,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    if (!this.kafka) {
      // Standalone mode (no Kafka in the app): licensing's events pass through this process's bus.
      this.stopObserving = inProcessEventBus.observe([TOPICS.licensing], (message) => {
        if (LICENSE_CHANGES.has(message.eventType)) this.client.invalidate(message.key);
      });
      return;
    }
    this.listener = new EntitlementsInvalidationListener(this.kafka, this.client, this.options.service);
    // Joining a group takes seconds; the app need not wait, the cache lifetime covers the gap.
    this.listener.start().catch((error: unknown) => {
      this.logger.error({ err: String(error) }, 'entitlements cache will rely on its lifetime only');
    });
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopObserving?.();
    await this.listener?.stop();
  }
}
