import { type DynamicModule, Module } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { CONSUMER_GROUPS, TOPICS } from '@lib/contracts';
import { DatabaseModule } from '@lib/database';
import { GuildAccessModule } from '@lib/guild-access';
import { IdentityModule } from '@lib/identity';
import { EVENT_HANDLERS, MessagingModule, MESSAGING_READINESS, transportOf } from '@lib/messaging';
import { OutboxModule } from '@lib/outbox';
import { HealthModule, LoggingModule, MetricsModule, type ReadinessCheck } from '@lib/runtime';
import type { LicensingEnv } from './licensing.env';
import { licensingDatabase } from './database';
import { LicenseEventsHandler } from './licenses/license-events.handler';
import { LicensingModule } from './licensing.module';

@Module({})
export class AppModule {
  static forRoot(config: LicensingEnv): DynamicModule {
    return {
      module: AppModule,
      imports: [
        LoggingModule.forService('licensing', config.LOG_LEVEL),
        ScheduleModule.forRoot(),
        DatabaseModule.forService({
          ...licensingDatabase,
          url: config.DATABASE_URL,
          migrateOnStart: config.MIGRATE_ON_START,
        }),
        IdentityModule.forService('licensing', config),
        GuildAccessModule.forService({ recoveryUrl: config.RECOVERY_URL }),
        MessagingModule.forService(
          {
            ...transportOf(config),
            clientId: 'licensing',
            schema: licensingDatabase.schema,
            consume: { groupId: CONSUMER_GROUPS.licensing, topics: [TOPICS.billing] },
          },
          [
            {
              provide: EVENT_HANDLERS,
              inject: [LicenseEventsHandler],
              useFactory: (handler: LicenseEventsHandler) => [handler],
            },
          ],
          [LicensingModule],
        ),
        OutboxModule.forService({
          schema: licensingDatabase.schema,
          producer: 'licensing',
          databaseUrl: config.DATABASE_URL,
          relay: true,
          publisher: MessagingModule.publisherProvider(),
        }),
        HealthModule.forRoot({
          inject: [MESSAGING_READINESS],
          useFactory: (events: ReadinessCheck) => [events],
        }),
        MetricsModule,
        LicensingModule,
      ],
    };
  }
}
