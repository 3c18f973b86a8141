import { Global, Module } from '@nestjs/common';
import { ChatPlatformClient } from '@lib/chat-platform';
import { GuildRegistry } from '../guilds/guild-registry.service';
import { GuildsModule } from '../guilds/guilds.module';
import { SnapshotService } from '../snapshots/snapshot.service';
import { SnapshotsModule } from '../snapshots/snapshots.module';
import { ANTINUKE_ACTIVITIES, createAntiNukeActivities } from './activities/antinuke.activities';
import { AntiNukeIncidentsRepository } from './antinuke-incidents.repository';
import { AntiNukeSettingsRepository } from './antinuke-settings.repository';
import { AntiNukeController } from './antinuke.controller';
import { AntiNukeService } from './antinuke.service';
import { BotRemovalRecorder } from './bot-removal.recorder';
import { AntiNukeLicenseHandler } from './license-events.handler';

/**
 * AntiNuke (issue 10). The recovery worker registers ANTINUKE_ACTIVITIES (WORKFLOW_REGISTRY); the event consumer runs
 * AntiNukeLicenseHandler. The engine side (AntiNukeWorkflows, and DESTRUCTIVE_ACTION_SINK for live
 * sync) comes from WorkflowEngineModule, Temporal's or this process's.
 */
@Global()
@Module({
  imports: [GuildsModule, SnapshotsModule],
  controllers: [AntiNukeController],
  providers: [
    AntiNukeSettingsRepository,
    AntiNukeIncidentsRepository,
    AntiNukeService,
    AntiNukeLicenseHandler,
    BotRemovalRecorder,
    {
      provide: ANTINUKE_ACTIVITIES,
      inject: [GuildRegistry, SnapshotService, ChatPlatformClient, AntiNukeIncidentsRepository],
      useFactory: (
        guilds: GuildRegistry,
        snapshots: SnapshotService,
        platform: ChatPlatformClient,
        incidents: AntiNukeIncidentsRepository,
      ) => createAntiNukeActivities({ guilds, snapshots, platform, incidents }),
    },
  ],
  exports: [ANTINUKE_ACTIVITIES, AntiNukeSettingsRepository, AntiNukeLicenseHandler, BotRemovalRecorder],
})
export class AntiNukeModule {}
