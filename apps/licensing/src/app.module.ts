import { type DynamicModule, Module } from '@nestjs/common';
import { CONSUMER_GROUPS, TOPICS } from '@lib/contracts';
import { GuildAccessModule } from '@lib/guild-access';
import { eventHandlers, MessagingModule, MESSAGING_READINESS, transportOf } from '@lib/messaging';
import { readinessChecks, retentionSweepProvider, serviceAppModule } from '@lib/runtime';
import type { LicensingEnv } from './licensing.env';
import { licensingDatabase } from './database';
import { LicenseEventsHandler } from './licenses/license-events.handler';
import { LicensingModule } from './licensing.module';
import { licensingRetention } from './licensing-retention';

@Module({})
export class AppModule {
  static forRoot(config: LicensingEnv): DynamicModule {
    return serviceAppModule(AppModule, 'licensing', config, {
      database: licensingDatabase,
      readiness: readinessChecks(MESSAGING_READINESS),
      imports: [
        GuildAccessModule.forService({ recoveryUrl: config.RECOVERY_URL }),
        MessagingModule.forService(
          {
            ...transportOf(config),
            clientId: 'licensing',
            schema: licensingDatabase.schema,
            consume: { groupId: CONSUMER_GROUPS.licensing, topics: [TOPICS.billing] },
          },
          [eventHandlers(LicenseEventsHandler)],
          [LicensingModule],
        ),
        MessagingModule.relayedOutbox({
          schema: licensingDatabase.schema,
          producer: 'licensing',
          databaseUrl: config.DATABASE_URL,
          retentionHours: config.OUTBOX_RETENTION_HOURS,
        }),
        LicensingModule,
      ],
      providers: [
        retentionSweepProvider({ name: 'licensing-retention', cron: config.RETENTION_CRON }, (dataSource) =>
          licensingRetention(dataSource, config),
        ),
      ],
    });
  }
}
