import { Module } from '@nestjs/common';
import { GuildsModule } from '../guilds/guilds.module';
import { RestoreActivitiesModule } from './activities/restore-activities.module';
import { RestoreController } from './restore.controller';
import { RestoreService } from './restore.service';

/** Preview, start, read and cancel restores; the engine that runs them comes from WorkflowEngineModule. */
@Module({
  imports: [GuildsModule, RestoreActivitiesModule],
  controllers: [RestoreController],
  providers: [RestoreService],
})
export class RestoreModule {}
