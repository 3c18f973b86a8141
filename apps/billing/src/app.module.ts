import { type DynamicModule, Module } from '@nestjs/common';
import { EntitlementsModule } from '@lib/entitlements';
import { GuildAccessModule } from '@lib/guild-access';
import { MessagingModule, MESSAGING_READINESS, transportOf } from '@lib/messaging';
import { readinessChecks, serviceAppModule } from '@lib/runtime';
import type { BillingEnv } from './billing.env';
import { BillingModule } from './billing.module';
import { billingDatabase } from './database';

@Module({})
export class AppModule {
  static forRoot(config: BillingEnv): DynamicModule {
    return serviceAppModule(AppModule, 'billing', config, {
      database: billingDatabase,
      readiness: readinessChecks(MESSAGING_READINESS),
      imports: [
        MessagingModule.forService({ ...transportOf(config), clientId: 'billing', schema: 'billing' }),
        MessagingModule.relayedOutbox({
          schema: billingDatabase.schema,
          producer: 'billing',
          databaseUrl: config.DATABASE_URL,
          retentionHours: config.OUTBOX_RETENTION_HOURS,
        }),
        GuildAccessModule.forService({ recoveryUrl: config.RECOVERY_URL }),
        EntitlementsModule.forService({ licensingUrl: config.LICENSING_URL, service: 'billing' }),
        BillingModule.forRoot(config),
      ],
    });
  }
}
