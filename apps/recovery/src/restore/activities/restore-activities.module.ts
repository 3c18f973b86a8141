import { Module } from '@nestjs/common';
import { GuildRegistry } from '../../guilds/guild-registry.service';
import { GuildsModule } from '../../guilds/guilds.module';
import { ImageStore } from '../../snapshots/images/image-store';
import { SnapshotService } from '../../snapshots/snapshot.service';
import { SnapshotsModule } from '../../snapshots/snapshots.module';
import { LiveSyncControl } from '../../sync/live-sync-control.repository';
import { PlatformIdReplacementsRepository } from '../platform-id-replacements.repository';
import { RestoreComparisons } from '../restore-comparisons';
import { RestoreJobsRepository } from '../restore-jobs.repository';
import { RestoreSteps } from '../steps';
import { createRestoreActivities, RESTORE_ACTIVITIES } from './restore.activities';

/**
 * The restore's activities and what they stand on, built once: the Temporal worker
 * (RecoveryWorkerService) registers them, the in-process engine calls them, and the API shares
 * their job repository and comparisons.
 */
@Module({
  imports: [GuildsModule, SnapshotsModule],
  providers: [
    RestoreJobsRepository,
    PlatformIdReplacementsRepository,
    RestoreComparisons,
    RestoreSteps,
    LiveSyncControl,
    {
      provide: RESTORE_ACTIVITIES,
      inject: [
        RestoreJobsRepository,
        GuildRegistry,
        RestoreComparisons,
        RestoreSteps,
        SnapshotService,
        LiveSyncControl,
        ImageStore,
      ],
      useFactory: (
        jobs: RestoreJobsRepository,
        guilds: GuildRegistry,
        comparisons: RestoreComparisons,
        steps: RestoreSteps,
        snapshots: SnapshotService,
        liveSync: LiveSyncControl,
        images: ImageStore,
      ) => createRestoreActivities({ jobs, guilds, comparisons, steps, snapshots, liveSync, images }),
    },
  ],
  exports: [RESTORE_ACTIVITIES, RestoreJobsRepository, RestoreComparisons],
})
export class RestoreActivitiesModule {}
