import { type DynamicModule, Module } from '@nestjs/common';
import { KeyValueModule } from '@lib/key-value';
import { serviceAppModule } from '@lib/runtime';
import { webhookIntakeDatabase } from './database';
import type { WebhookIntakeEnv } from './webhook-intake.env';
import { WebhookIntakeModule } from './webhook-intake.module';

@Module({})
export class AppModule {
  static forRoot(config: WebhookIntakeEnv): DynamicModule {
    // The webhook endpoint runs ahead of the request logger: each delivery is a webhook_events row
    // with more in it than an access line would have. The scheduler runs the webhook_events
    // retention job (WEBHOOK_EVENTS_RETENTION_CRON).
    return serviceAppModule(AppModule, 'webhook-intake', config, {
      database: webhookIntakeDatabase,
      imports: [
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
        WebhookIntakeModule.forRoot(config),
      ],
    });
  }
}
