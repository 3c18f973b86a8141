import { type DynamicModule, Module } from '@nestjs/common';
import { DatabaseModule } from '@lib/database';
import { IdentityModule } from '@lib/identity';
import { HealthModule, LoggingModule, MetricsModule } from '@lib/runtime';
import { gatewayDatabase } from './database';
import type { GatewayEnv } from './gateway.env';

@Module({})
export class AppModule {
  static forRoot(config: GatewayEnv): DynamicModule {
    return {
      module: AppModule,
      imports: [
        LoggingModule.forService('gateway', config.LOG_LEVEL),
        DatabaseModule.forService({
          ...gatewayDatabase,
          url: config.DATABASE_URL,
          migrateOnStart: config.MIGRATE_ON_START,
        }),
        IdentityModule.forService({ secret: config.INTERNAL_JWT_SECRET, service: 'gateway' }),
        HealthModule.forRoot(),
        MetricsModule,
      ],
    };
  }
}
