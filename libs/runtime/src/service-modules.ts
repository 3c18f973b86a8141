import type { DynamicModule, InjectionToken, ModuleMetadata, Type } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import type { BaseEnv } from '@lib/config';
import type { ServiceName } from '@lib/contracts';
import { DatabaseModule, type ServiceDatabaseOptions } from '@lib/database';
import { IdentityModule } from '@lib/identity';
import { HealthModule, type ReadinessCheck } from './health.module';
import { LoggingModule } from './logging.module';
import { MetricsModule } from './metrics.module';

type ReadinessProvider = NonNullable<Parameters<typeof HealthModule.forRoot>[0]>;

export interface ServiceAppOptions extends Pick<ModuleMetadata, 'imports' | 'controllers' | 'providers'> {
  /** The app's schema, entities and migrations (its `database.ts`); the URL comes from DATABASE_URL. */
  database: Omit<ServiceDatabaseOptions, 'url'>;
  /** What `/health/ready` checks besides the database (Kafka, Temporal, Redis); nothing else by default. */
  readiness?: ReadinessProvider;
}

/** Readiness made of the checks other modules export under these tokens (e.g. MESSAGING_READINESS). */
export function readinessChecks(...tokens: InjectionToken[]): ReadinessProvider {
  return { inject: tokens, useFactory: (...checks: ReadinessCheck[]) => checks };
}

/**
 * An app's root module (docs/architecture.md, libs/runtime): first the modules every app has, then
 * `options.imports`. Every app has JSON logs named after the service, the scheduler its periodic
 * passes go on, its own database (migrated at start when MIGRATE_ON_START), internal tokens signed
 * and checked with its keys, `/health` and `/metrics`.
 */
export function serviceAppModule(
  module: Type,
  service: ServiceName,
  config: BaseEnv,
  options: ServiceAppOptions,
): DynamicModule {
  const { database, readiness, imports = [], ...rest } = options;
  return {
    module,
    imports: [
      LoggingModule.forService(service, config.LOG_LEVEL),
      ScheduleModule.forRoot(),
      DatabaseModule.forService({
        ...database,
        url: config.DATABASE_URL,
        migrateOnStart: config.MIGRATE_ON_START,
      }),
      IdentityModule.forService(service, config),
      HealthModule.forRoot(readiness),
      MetricsModule,
      ...imports,
    ],
    ...rest,
  };
}
