import { type DynamicModule, Module } from '@nestjs/common';
import { DatabaseModule } from '@lib/database';
import { IdentityModule } from '@lib/identity';
import { HealthModule, LoggingModule, MetricsModule } from '@lib/runtime';
import { webhookIntakeDatabase } from './database';
import { WEBHOOK_PATH } from './webhooks/webhooks.controller';
import type { WebhookIntakeEnv } from './webhook-intake.env';
import { WebhookIntakeModule } from './webhook-intake.module';

@Module({})
export class AppModule {
  static forRoot(config: WebhookIntakeEnv): DynamicModule {
    return {
      module: AppModule,
      imports: [
        // Each delivery is a webhook_events row with more in it than an access line would have.
        LoggingModule.forService('webhook-intake', config.LOG_LEVEL, [WEBHOOK_PATH]),
        DatabaseModule.forService({
          ...webhookIntakeDatabase,
          url: config.DATABASE_URL,
          migrateOnStart: config.MIGRATE_ON_START,
        }),
        IdentityModule.forService({ secret: config.INTERNAL_JWT_SECRET, service: 'webhook-intake' }),
        HealthModule.forRoot(),
        MetricsModule,
        WebhookIntakeModule.forRoot(config),
      ],
    };
  }
}
