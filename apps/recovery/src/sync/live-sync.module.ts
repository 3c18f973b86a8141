import { type DynamicModule, Module } from '@nestjs/common';
import { GuildsModule } from '../guilds/guilds.module';
import type { RecoveryEnv } from '../recovery.env';
import { DiscordGatewaySource } from './discord-gateway.source';
import { GUILD_EVENT_SOURCE } from './guild-events';
import { LiveSyncControl } from './live-sync-control.repository';
import { LIVE_SYNC_OPTIONS, type LiveSyncOptions, LiveSyncService } from './live-sync.service';

type LiveSyncConfig = Pick<
  RecoveryEnv,
  | 'LIVE_SYNC_ENABLED'
  | 'LIVE_SYNC_PAUSE_POLL_MS'
  | 'LIVE_SYNC_ENTITLEMENT_RECHECK_MS'
  | 'DISCORD_API_URL'
  | 'DISCORD_BOT_TOKEN'
>;

/**
 * Live sync, the Sync part of recovery. It connects to the platform's gateway only where
 * `LIVE_SYNC_ENABLED` is true: exactly one replica must hold the bot's connection. Elsewhere the
 * module is inert. AntiNuke takes the destructive actions through DESTRUCTIVE_ACTION_SINK.
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
      imports: [GuildsModule],
      providers: [
        { provide: LIVE_SYNC_OPTIONS, useValue: options },
        {
          provide: GUILD_EVENT_SOURCE,
          useFactory: () =>
            new DiscordGatewaySource({
              apiBaseUrl: config.DISCORD_API_URL,
              botToken: config.DISCORD_BOT_TOKEN,
            }),
        },
        LiveSyncControl,
        LiveSyncService,
      ],
      exports: [LiveSyncService],
    };
  }
}
