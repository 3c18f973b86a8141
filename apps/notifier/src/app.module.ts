import { type DynamicModule, Module } from '@nestjs/common';
import { ChatPlatformClient } from '@lib/chat-platform';
import { ALL_TOPICS, CONSUMER_GROUPS } from '@lib/contracts';
import { EntitlementsClient } from '@lib/entitlements';
import { GuildAccessModule } from '@lib/guild-access';
import { InternalTokenCodec } from '@lib/identity';
import { eventHandlers, MessagingModule, MESSAGING_READINESS, transportOf } from '@lib/messaging';
import { readinessChecks, retentionSweepProvider, serviceAppModule } from '@lib/runtime';
import { AuditLogController } from './audit/audit-log.controller';
import { AuditLogHandler } from './audit/audit-log.handler';
import { AuditLogRepository } from './audit/audit-log.repository';
import { notifierDatabase } from './database';
import { DmPlanningHandler } from './notifications/dm-planning.handler';
import { DM_SENDER_OPTIONS, DmSender, type DmSenderOptions } from './notifications/dm-sender.service';
import { NotificationsRepository } from './notifications/notifications.repository';
import type { NotifierEnv } from './notifier.env';
import { notifierRetention } from './notifier-retention';
import { PreferencesController } from './preferences/preferences.controller';
import { PreferencesRepository } from './preferences/preferences.repository';
import { TEST_DM_INTERVAL_SECONDS, TestDmService } from './preferences/test-dm.service';

@Module({})
export class AppModule {
  static forRoot(config: NotifierEnv): DynamicModule {
    return serviceAppModule(AppModule, 'notifier', config, {
      database: notifierDatabase,
      readiness: readinessChecks(MESSAGING_READINESS),
      imports: [
        GuildAccessModule.forService({ recoveryUrl: config.RECOVERY_URL }),
        MessagingModule.forService(
          {
            ...transportOf(config),
            clientId: 'notifier',
            schema: notifierDatabase.schema,
            consume: { groupId: CONSUMER_GROUPS.notifier, topics: ALL_TOPICS },
          },
          [
            NotificationsRepository,
            PreferencesRepository,
            AuditLogRepository,
            AuditLogHandler,
            DmPlanningHandler,
            eventHandlers(AuditLogHandler, DmPlanningHandler),
          ],
        ),
      ],
      controllers: [PreferencesController, AuditLogController],
      providers: [
        NotificationsRepository,
        PreferencesRepository,
        AuditLogRepository,
        // The audit log's retention asks each guild's plan (audit/audit-log-retention.ts). Not
        // EntitlementsModule: its cache listener would need a Kafka group the notifier's user lacks,
        // and a sweep asks each guild once, so the cache's 60 s cannot go stale on it.
        {
          provide: EntitlementsClient,
          inject: [InternalTokenCodec],
          useFactory: (codec: InternalTokenCodec) =>
            new EntitlementsClient({ licensingUrl: config.LICENSING_URL, codec }),
        },
        {
          provide: ChatPlatformClient,
          useValue: new ChatPlatformClient({
            apiBaseUrl: config.DISCORD_API_URL,
            botToken: config.DISCORD_BOT_TOKEN,
          }),
        },
        {
          provide: DM_SENDER_OPTIONS,
          useValue: {
            pollIntervalMs: config.DM_POLL_INTERVAL_MS,
            retryBaseMs: config.DM_RETRY_BASE_MS,
            maxAttempts: config.DM_MAX_ATTEMPTS,
          } satisfies DmSenderOptions,
        },
        DmSender,
        { provide: TEST_DM_INTERVAL_SECONDS, useValue: config.TEST_DM_INTERVAL_SECONDS },
        TestDmService,
        retentionSweepProvider(
          { name: 'notifier-retention', cron: config.RETENTION_CRON },
          (dataSource, plans: EntitlementsClient) => notifierRetention(dataSource, config, plans),
          [EntitlementsClient],
        ),
      ],
    });
  }
}
