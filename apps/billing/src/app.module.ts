import { type DynamicModule, Module } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { DatabaseModule } from '@lib/database';
import { EntitlementsModule } from '@lib/entitlements';
import { GuildAccessModule } from '@lib/guild-access';
import { IdentityModule } from '@lib/identity';
import { MessagingModule, MESSAGING_READINESS, transportOf } from '@lib/messaging';
import { OutboxModule } from '@lib/outbox';
import { HealthModule, LoggingModule, MetricsModule, type ReadinessCheck } from '@lib/runtime';
import type { BillingEnv } from './billing.env';
import { BillingModule } from './billing.module';
import { billingDatabase } from './database';

@Module({})
export class AppModule {
  static forRoot(config: BillingEnv): DynamicModule {
    return {
      module: AppModule,
      imports: [
        LoggingModule.forService('billing', config.LOG_LEVEL),
        ScheduleModule.forRoot(),
        DatabaseModule.forService({
          ...billingDatabase,
          url: config.DATABASE_URL,
          migrateOnStart: config.MIGRATE_ON_START,
        }),
        IdentityModule.forService('billing', config),
        MessagingModule.forService({ ...transportOf(config), clientId: 'billing', schema: 'billing' }),
        OutboxModule.forService({
          schema: billingDatabase.schema,
          producer: 'billing',
          databaseUrl: config.DATABASE_URL,
          relay: true,
          publisher: MessagingModule.publisherProvider(),
        }),
        HealthModule.forRoot({
          inject: [MESSAGING_READINESS],
          useFactory: (events: ReadinessCheck) => [events],
        }),
        MetricsModule,
        GuildAccessModule.forService({ recoveryUrl: config.RECOVERY_URL }),
        EntitlementsModule.forService({ licensingUrl: config.LICENSING_URL, service: 'billing' }),
        BillingModule.forRoot(config),
      ],
    };
  }
}
