import { type DynamicModule, Module } from '@nestjs/common';
import { GuildsModule } from '../guilds/guilds.module';
import { SnapshotsModule } from '../snapshots/snapshots.module';
import { LiveSyncControl } from '../sync/live-sync-control';
import { RestoreComparisons } from './restore-context';
import { RestoreJobsRepository } from './restore-jobs.repository';
import { RestoreSteps } from './restore-steps';
import { RESTORE_WORKER_ENABLED, RestoreWorkerService } from './restore-worker.service';
import { RestoreController } from './restore.controller';
import { RestoreService } from './restore.service';

@Module({})
export class RestoreModule {
  static forRoot(options: { runWorker: boolean }): DynamicModule {
    return {
      module: RestoreModule,
      imports: [GuildsModule, SnapshotsModule],
      controllers: [RestoreController],
      providers: [
        RestoreService,
        RestoreJobsRepository,
        RestoreComparisons,
        RestoreSteps,
        LiveSyncControl,
        RestoreWorkerService,
        { provide: RESTORE_WORKER_ENABLED, useValue: options.runWorker },
      ],
    };
  }
}
