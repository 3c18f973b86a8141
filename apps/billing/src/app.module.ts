import { type DynamicModule, Module } from '@nestjs/common';
import { DatabaseModule } from '@lib/database';
import { EntitlementsModule } from '@lib/entitlements';
import { GuildAccessModule } from '@lib/guild-access';
import { IdentityModule } from '@lib/identity';
import { checkKafka, KAFKA_ADMIN, MessagingModule } from '@lib/messaging';
import { OutboxModule } from '@lib/outbox';
import { HealthModule, LoggingModule, MetricsModule } from '@lib/runtime';
import type { Admin } from 'kafkajs';
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
        DatabaseModule.forService({
          ...billingDatabase,
          url: config.DATABASE_URL,
          migrateOnStart: config.MIGRATE_ON_START,
        }),
        IdentityModule.forService({ secret: config.INTERNAL_JWT_SECRET, service: 'billing' }),
        MessagingModule.forService({ brokers: config.KAFKA_BROKERS, clientId: 'billing', schema: 'billing' }),
        OutboxModule.forService({
          schema: billingDatabase.schema,
          producer: 'billing',
          databaseUrl: config.DATABASE_URL,
          relay: true,
          publisher: MessagingModule.publisherProvider(),
        }),
        HealthModule.forRoot({
          inject: [KAFKA_ADMIN],
          useFactory: (admin: Admin) => [{ name: 'kafka', check: () => checkKafka(admin) }],
        }),
        MetricsModule,
        GuildAccessModule.forService({ recoveryUrl: config.RECOVERY_URL, service: 'billing' }),
        EntitlementsModule.forService({ licensingUrl: config.LICENSING_URL, service: 'billing' }),
        BillingModule.forRoot(config),
      ],
    };
  }
}
