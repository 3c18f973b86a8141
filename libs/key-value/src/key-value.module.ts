import {
  ConfigurableModuleBuilder,
  Global,
  Inject,
  Module,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import type { RedisOptions } from 'ioredis';
import { DataSource } from 'typeorm';
import { KEY_VALUE_STORE, type KeyValueStore } from './key-value-store';
import { PostgresKeyValueStore } from './postgres-key-value.repository';
import { RedisKeyValueStore } from './redis-key-value-store';

export interface KeyValueModuleOptions {
  /** Redis at this URL when it is set and not empty; otherwise the service's Postgres table. */
  redisUrl?: string;
  /** The Redis connection's options (each app's own fail-fast settings). */
  redisOptions?: RedisOptions;
  /** The service's schema, whose `key_values` table serves when there is no Redis. */
  schema: string;
}

/** `KeyValueModule.forRoot(options)`: Nest's configurable-module builder writes it. */
const { ConfigurableModuleClass, MODULE_OPTIONS_TOKEN: OPTIONS } =
  new ConfigurableModuleBuilder<KeyValueModuleOptions>().setClassMethodName('forRoot').build();

/** docs/decisions/standalone-mode.md: Redis is replaced by Postgres unless REDIS_URL is set. */
export function createKeyValueStore(
  options: KeyValueModuleOptions,
  dataSource: DataSource,
  scheduler?: SchedulerRegistry,
): KeyValueStore {
  return options.redisUrl
    ? new RedisKeyValueStore(options.redisUrl, options.redisOptions)
    : new PostgresKeyValueStore(dataSource, { schema: options.schema, scheduler });
}

/** Provides KEY_VALUE_STORE everywhere in the app (the readiness check pings the same store). */
@Global()
@Module({
  providers: [
    {
      provide: KEY_VALUE_STORE,
      // The Postgres store's purge goes on the app's scheduler (ScheduleModule.forRoot() in its AppModule).
      inject: [OPTIONS, DataSource, SchedulerRegistry],
      useFactory: createKeyValueStore,
    },
  ],
  exports: [KEY_VALUE_STORE],
})
export class KeyValueModule extends ConfigurableModuleClass implements OnApplicationShutdown {
  constructor(@Inject(KEY_VALUE_STORE) private readonly store: KeyValueStore) {
    super();
  }

  /** After the HTTP server has closed, so no request in flight loses its store. */
  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
  }
}
