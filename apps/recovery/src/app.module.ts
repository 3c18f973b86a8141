import { type DynamicModule, Module } from '@nestjs/common';
import { CONSUMER_GROUPS, TOPICS } from '@lib/contracts';
import { EntitlementsModule } from '@lib/entitlements';
import { eventHandlers, MessagingModule, MESSAGING_READINESS, transportOf } from '@lib/messaging';
import { readinessChecks, retentionSweepProvider, serviceAppModule } from '@lib/runtime';
import { AntiNukeModule } from './antinuke/antinuke.module';
import { AntiNukeLicenseHandler } from './antinuke/license-events.handler';
import { GuardModule } from './antinuke/pending-changes.schedule';
import { recoveryDatabase } from './database';
import { GuildsModule } from './guilds/guilds.module';
import { InteractionsModule } from './interactions/interactions.module';
import { RestoreModule } from './restore/restore.module';
import { PlatformModule } from './platform/platform.module';
import { SnapshotSchedulesModule } from './snapshots/snapshot-schedules';
import { SnapshotsModule } from './snapshots/snapshots.module';
import { UsersModule } from './users/users.module';
import { LIVE_SYNC_READINESS, LiveSyncModule } from './sync/live-sync.module';
import type { RecoveryEnv } from './recovery.env';
import { recoveryRetention } from './recovery-retention';
import { WORKFLOW_ENGINE_READINESS, WorkflowEngineModule } from './workflow-engine/workflow-engine.module';

@Module({})
export class AppModule {
  static forRoot(config: RecoveryEnv): DynamicModule {
    return serviceAppModule(AppModule, 'recovery', config, {
      database: recoveryDatabase,
      readiness: readinessChecks(MESSAGING_READINESS, WORKFLOW_ENGINE_READINESS, LIVE_SYNC_READINESS),
      imports: [
        MessagingModule.forService(
          {
            ...transportOf(config),
            clientId: 'recovery',
            schema: 'recovery',
            consume: { groupId: CONSUMER_GROUPS.recovery, topics: [TOPICS.licensing] },
          },
          [eventHandlers(AntiNukeLicenseHandler)],
          [AntiNukeModule],
        ),
        MessagingModule.relayedOutbox({
          schema: recoveryDatabase.schema,
          producer: 'recovery',
          databaseUrl: config.DATABASE_URL,
          retentionHours: config.OUTBOX_RETENTION_HOURS,
        }),
        WorkflowEngineModule.forRoot(config),
        PlatformModule.forRoot({
          apiBaseUrl: config.DISCORD_API_URL,
          cdnBaseUrl: config.DISCORD_CDN_URL,
          botToken: config.DISCORD_BOT_TOKEN,
          longestRateLimitWaitMs: config.PLATFORM_LONGEST_RATE_LIMIT_WAIT_MS,
        }),
        EntitlementsModule.forService({ licensingUrl: config.LICENSING_URL, service: 'recovery' }),
        GuildsModule,
        SnapshotsModule,
        SnapshotSchedulesModule.forRoot({
          scheduledSnapshotsIntervalMs: config.SCHEDULED_SNAPSHOTS_INTERVAL_MS,
          retentionCron: config.SNAPSHOT_RETENTION_CRON,
        }),
        UsersModule,
        InteractionsModule.forRoot({ publicKeyHex: config.DISCORD_PUBLIC_KEY }),
        RestoreModule,
        LiveSyncModule.forRoot(config),
        AntiNukeModule,
        GuardModule.forRoot({
          looseningDelayMinutes: config.ANTINUKE_LOOSENING_DELAY_MINUTES,
          pendingChangesIntervalMs: config.ANTINUKE_PENDING_CHANGES_INTERVAL_MS,
          snapshotDeleteGraceDays: config.SNAPSHOT_DELETE_GRACE_DAYS,
        }),
      ],
      providers: [
        retentionSweepProvider({ name: 'recovery-retention', cron: config.RETENTION_CRON }, (dataSource) =>
          recoveryRetention(dataSource, config),
        ),
      ],
    });
  }
}
