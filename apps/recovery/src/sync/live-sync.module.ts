import { type DynamicModule, Module } from '@nestjs/common';
import { ChatPlatformClient } from '@lib/chat-platform';
import { SchedulerRegistry } from '@nestjs/schedule';
import { DataSource } from 'typeorm';
import { BotRemovalReadBack } from '../antinuke/undo/bot-removal-read-back';
import { RaidUndoRepository } from '../antinuke/undo/raid-undo.repository';
import { GuildsModule } from '../guilds/guilds.module';
import type { RecoveryEnv } from '../recovery.env';
import { GUILD_EVENT_SOURCE } from './guild-events';
import { ChangeJournal } from './change-journal';
import { ChangeJournalRepository } from './change-journal.repository';
import { LiveSyncControl } from './live-sync-control.repository';
import { LIVE_SYNC_OPTIONS, type LiveSyncOptions, LiveSyncService } from './live-sync.service';
import type { ReadinessCheck } from '@lib/runtime';
import { describeTrouble, GatewayShards } from './shards/gateway-shards';
import { ShardCoordinator } from './shards/shard-coordinator';
import { ShardLeases } from './shards/shard-leases.repository';
import { ShardSessions } from './shards/shard-sessions.repository';

type LiveSyncConfig = Pick<
  RecoveryEnv,
  | 'LIVE_SYNC_ENABLED'
  | 'LIVE_SYNC_PAUSE_POLL_MS'
  | 'LIVE_SYNC_ENTITLEMENT_RECHECK_MS'
  | 'LIVE_SYNC_SHARD_COUNT'
  | 'LIVE_SYNC_BALANCE_MS'
  | 'LIVE_SYNC_CONNECT_RETRY_MS'
  | 'GATEWAY_IDENTIFY_RESERVE'
  | 'DISCORD_API_URL'
  | 'DISCORD_BOT_TOKEN'
>;

/**
 * The readiness check of live sync: down while a shard this replica holds is not followed (closed
 * by the platform for good, or holding its IDENTIFY back for the session-start reserve).
 */
export const LIVE_SYNC_READINESS = Symbol('LIVE_SYNC_READINESS');

/**
 * Live sync, the Sync part of recovery. Where `LIVE_SYNC_ENABLED` is true the replica takes part:
 * it claims its share of the gateway shards (ShardCoordinator) and follows them. Elsewhere the
 * module is inert. AntiNuke takes the destructive actions through DESTRUCTIVE_ACTION_SINK. Global,
 * so that health can read LIVE_SYNC_READINESS.
 */
@Module({})
export class LiveSyncModule {
  static forRoot(config: LiveSyncConfig): DynamicModule {
    const options: LiveSyncOptions = {
      enabled: config.LIVE_SYNC_ENABLED,
      pausePollMs: config.LIVE_SYNC_PAUSE_POLL_MS,
      entitlementRecheckMs: config.LIVE_SYNC_ENTITLEMENT_RECHECK_MS,
    };
    return {
      module: LiveSyncModule,
      global: true,
      imports: [GuildsModule],
      providers: [
        { provide: LIVE_SYNC_OPTIONS, useValue: options },
        ShardSessions,
        {
          provide: ShardCoordinator,
          inject: [DataSource, ShardSessions, ChatPlatformClient, SchedulerRegistry],
          useFactory: (
            dataSource: DataSource,
            sessions: ShardSessions,
            platform: ChatPlatformClient,
            scheduler: SchedulerRegistry,
          ) =>
            new ShardCoordinator(
              { shardCount: config.LIVE_SYNC_SHARD_COUNT, balanceMs: config.LIVE_SYNC_BALANCE_MS },
              new ShardLeases(dataSource),
              new GatewayShards(
                {
                  apiBaseUrl: config.DISCORD_API_URL,
                  botToken: config.DISCORD_BOT_TOKEN,
                  connectRetryMs: config.LIVE_SYNC_CONNECT_RETRY_MS,
                  identifyReserve: config.GATEWAY_IDENTIFY_RESERVE,
                },
                sessions,
              ),
              platform,
              scheduler,
            ),
        },
        { provide: GUILD_EVENT_SOURCE, useExisting: ShardCoordinator },
        {
          provide: LIVE_SYNC_READINESS,
          inject: [ShardCoordinator],
          useFactory: (coordinator: ShardCoordinator): ReadinessCheck => ({
            name: 'gateway',
            check: () => {
              const troubles = coordinator.troubles();
              if (troubles.length > 0) throw new Error(troubles.map(describeTrouble).join('; '));
              return Promise.resolve();
            },
          }),
        },
        LiveSyncControl,
        ChangeJournalRepository,
        ChangeJournal,
        {
          provide: BotRemovalReadBack,
          inject: [ChatPlatformClient, DataSource, ChangeJournalRepository],
          useFactory: (
            platform: ChatPlatformClient,
            dataSource: DataSource,
            journal: ChangeJournalRepository,
          ) => new BotRemovalReadBack(platform, new RaidUndoRepository(dataSource), journal),
        },
        LiveSyncService,
      ],
      exports: [LiveSyncService, LIVE_SYNC_READINESS],
    };
  }
}
