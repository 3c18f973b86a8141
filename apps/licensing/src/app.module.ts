import { type DynamicModule, Module } from '@nestjs/common';
import { CONSUMER_GROUPS, TOPICS } from '@lib/contracts';
import { GuildAccessModule } from '@lib/guild-access';
import { eventHandlers, MessagingModule, MESSAGING_READINESS, transportOf } from '@lib/messaging';
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
          [eventHandlers(LicenseEventsHandler)],
          [LicensingModule],
        ),
        MessagingModule.relayedOutbox({
          schema: licensingDatabase.schema,
          producer: 'licensing',
          databaseUrl: config.DATABASE_URL,
        }),
        LicensingModule,
      ],
    });
  }
}
