import { type DynamicModule, Module } from '@nestjs/common';
import { ALL_TOPICS, CONSUMER_GROUPS } from '@lib/contracts';
import { DatabaseModule } from '@lib/database';
import { IdentityModule } from '@lib/identity';
import { checkKafka, EVENT_HANDLERS, type EventHandler, KAFKA_ADMIN, MessagingModule } from '@lib/messaging';
import { HealthModule, LoggingModule, MetricsModule } from '@lib/runtime';
import type { Admin } from 'kafkajs';
import { AuditLogHandler } from './audit/audit-log.handler';
import { notifierDatabase } from './database';
import type { NotifierEnv } from './notifier.env';

@Module({})
export class AppModule {
  static forRoot(config: NotifierEnv): DynamicModule {
    return {
      module: AppModule,
      imports: [
        LoggingModule.forService('notifier', config.LOG_LEVEL),
        DatabaseModule.forService({
          ...notifierDatabase,
          url: config.DATABASE_URL,
          migrateOnStart: config.MIGRATE_ON_START,
        }),
        IdentityModule.forService({ secret: config.INTERNAL_JWT_SECRET, service: 'notifier' }),
        MessagingModule.forService(
          {
            brokers: config.KAFKA_BROKERS,
            clientId: 'notifier',
            schema: notifierDatabase.schema,
            consume: { groupId: CONSUMER_GROUPS.notifier, topics: ALL_TOPICS },
          },
          [
            AuditLogHandler,
            {
              provide: EVENT_HANDLERS,
              inject: [AuditLogHandler],
              useFactory: (...handlers: EventHandler[]) => handlers,
            },
          ],
        ),
        HealthModule.forRoot({
          inject: [KAFKA_ADMIN],
          useFactory: (admin: Admin) => [{ name: 'kafka', check: () => checkKafka(admin) }],
        }),
        MetricsModule,
      ],
    };
  }
}
