import { type DynamicModule, Module } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { DatabaseModule } from '@lib/database';
import { IdentityModule } from '@lib/identity';
import { KeyValueModule } from '@lib/key-value';
import { HealthModule, LoggingModule, MetricsModule } from '@lib/runtime';
import { webhookIntakeDatabase } from './database';
import type { WebhookIntakeEnv } from './webhook-intake.env';
import { WebhookIntakeModule } from './webhook-intake.module';

@Module({})
export class AppModule {
  static forRoot(config: WebhookIntakeEnv): DynamicModule {
    return {
      module: AppModule,
      imports: [
        // The webhook endpoint runs ahead of the request logger: each delivery is a webhook_events row
        // with more in it than an access line would have.
        LoggingModule.forService('webhook-intake', config.LOG_LEVEL),
        DatabaseModule.forService({
          ...webhookIntakeDatabase,
          url: config.DATABASE_URL,
          migrateOnStart: config.MIGRATE_ON_START,
        }),
        IdentityModule.forService('webhook-intake', config),
        KeyValueModule.forRoot({
          redisUrl: config.REDIS_URL,
          // Fail fast instead of queueing while disconnected: the database deduplicates meanwhile.
          redisOptions: {
            enableOfflineQueue: false,
            maxRetriesPerRequest: 0,
            connectTimeout: 1_000,
            commandTimeout: 500,
            retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
          },
          schema: webhookIntakeDatabase.schema,
        }),
        HealthModule.forRoot(),
        MetricsModule,
        // The webhook_events retention job (WEBHOOK_EVENTS_RETENTION_CRON).
        ScheduleModule.forRoot(),
        WebhookIntakeModule.forRoot(config),
      ],
    };
  }
}
