import { type DynamicModule, Module } from '@nestjs/common';
import { CONSUMER_GROUPS, TOPICS } from '@lib/contracts';
import { GuildAccessModule } from '@lib/guild-access';
import { EVENT_HANDLERS, MessagingModule, MESSAGING_READINESS, transportOf } from '@lib/messaging';
import { OutboxModule } from '@lib/outbox';
import { readinessChecks, serviceAppModule } from '@lib/runtime';
import type { LicensingEnv } from './licensing.env';
import { licensingDatabase } from './database';
import { LicenseEventsHandler } from './licenses/license-events.handler';
import { LicensingModule } from './licensing.module';

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
        LicensingModule,
      ],
    });
  }
}
