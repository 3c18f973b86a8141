import { type DynamicModule, Module } from '@nestjs/common';
import { GuildsModule } from '../guilds/guilds.module';
import { RestoreActivitiesModule } from './activities/restore-activities.module';
import { RESTORE_WORKER_ENABLED, RestoreWorkerService } from './restore-worker.service';
import { RestoreController } from './restore.controller';
import { RestoreService } from './restore.service';

/** Preview, start, read and cancel restores; the engine that runs them comes from WorkflowEngineModule. */
@Module({})
export class RestoreModule {
  static forRoot(options: { runWorker: boolean }): DynamicModule {
    return {
      module: RestoreModule,
      imports: [GuildsModule, RestoreActivitiesModule],
      controllers: [RestoreController],
      providers: [
        RestoreService,
        RestoreWorkerService,
        { provide: RESTORE_WORKER_ENABLED, useValue: options.runWorker },
      ],
    };
  }
}
