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
import { LockdownController } from './lockdown/lockdown.controller';
import { LockdownLifter } from './lockdown/lockdown-lifter';
import { LockdownRepository } from './lockdown/lockdown.repository';
import { LockdownService } from './lockdown/lockdown.service';
import { ImmediateQuarantine } from './quarantine/immediate-quarantine';
import { QuarantineReleaseService } from './quarantine/quarantine-release.service';
import { QuarantineRepository } from './quarantine/quarantine.repository';
import { ChangeJournalRepository } from '../sync/change-journal.repository';
import { RaidUndoRepository } from './undo/raid-undo.repository';
import { RaidUndoService } from './undo/raid-undo.service';
import { PendingChangesRepository } from './pending-changes.repository';
import { PendingChangesService } from './pending-changes.service';
import { AntiNukeSettingsApplier } from './settings-applier';

/**
 * AntiNuke. The recovery worker registers ANTINUKE_ACTIVITIES (WORKFLOW_REGISTRY); the event consumer runs
 * AntiNukeLicenseHandler. The engine side (AntiNukeRunner, and DESTRUCTIVE_ACTION_SINK for live
 * sync) comes from WorkflowEngineModule, Temporal's or this process's.
 */
@Global()
@Module({
  imports: [GuildsModule, SnapshotsModule],
  controllers: [AntiNukeController, LockdownController],
  providers: [
    AntiNukeSettingsRepository,
    QuarantineRepository,
    QuarantineReleaseService,
    ImmediateQuarantine,
    LockdownRepository,
    LockdownService,
    LockdownLifter,
    AntiNukeIncidentsRepository,
    AntiNukeService,
    AntiNukeLicenseHandler,
    ChangeJournalRepository,
    RaidUndoRepository,
    RaidUndoService,
    AntiNukeSettingsApplier,
    PendingChangesRepository,
    PendingChangesService,
    BotRemovalRecorder,
    {
      provide: ANTINUKE_ACTIVITIES,
      inject: [
        GuildRegistry,
        SnapshotService,
        ChatPlatformClient,
        AntiNukeIncidentsRepository,
        QuarantineRepository,
        LockdownService,
      ],
      useFactory: (
        guilds: GuildRegistry,
        snapshots: SnapshotService,
        platform: ChatPlatformClient,
        incidents: AntiNukeIncidentsRepository,
        quarantines: QuarantineRepository,
        lockdowns: LockdownService,
      ) => createAntiNukeActivities({ guilds, snapshots, platform, incidents, quarantines, lockdowns }),
    },
  ],
  exports: [
    ANTINUKE_ACTIVITIES,
    AntiNukeSettingsRepository,
    AntiNukeLicenseHandler,
    PendingChangesService,
    BotRemovalRecorder,
    ImmediateQuarantine,
  ],
})
export class AntiNukeModule {}
