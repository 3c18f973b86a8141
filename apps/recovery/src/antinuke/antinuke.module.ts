import { Global, Module } from '@nestjs/common';
import { ChatPlatformClient } from '@lib/chat-platform';
import { GuildRegistry } from '../guilds/guild-registry.service';
import { GuildsModule } from '../guilds/guilds.module';
import { SnapshotService } from '../snapshots/snapshot.service';
import { SnapshotsModule } from '../snapshots/snapshots.module';
import { ANTINUKE_ACTIVITIES, createAntiNukeActivities } from './activities/antinuke.activities';
import { AntiNukeIncidentsRepository } from './antinuke-incidents.repository';
import { AntiNukeSettingsRepository } from './antinuke-settings.repository';
import { AntiNukeWorkflows } from './antinuke-workflows.service';
import { AntiNukeController } from './antinuke.controller';
import { AntiNukeService } from './antinuke.service';
import { DESTRUCTIVE_ACTION_SINK } from './destructive-action';
import { AntiNukeSignalSink } from './destructive-action.sink';
import { AntiNukeLicenseHandler } from './license-events.handler';

/**
 * AntiNuke (issue 10). Global so live sync injects DESTRUCTIVE_ACTION_SINK without importing it;
 * the recovery worker registers ANTINUKE_ACTIVITIES; the event consumer runs AntiNukeLicenseHandler.
 */
@Global()
@Module({
  imports: [GuildsModule, SnapshotsModule],
  controllers: [AntiNukeController],
  providers: [
    AntiNukeSettingsRepository,
    AntiNukeIncidentsRepository,
    AntiNukeWorkflows,
    AntiNukeService,
    AntiNukeLicenseHandler,
    { provide: DESTRUCTIVE_ACTION_SINK, useClass: AntiNukeSignalSink },
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
  exports: [DESTRUCTIVE_ACTION_SINK, ANTINUKE_ACTIVITIES, AntiNukeLicenseHandler],
})
export class AntiNukeModule {}
