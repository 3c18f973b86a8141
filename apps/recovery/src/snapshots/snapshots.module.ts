import { Module } from '@nestjs/common';
import { GuildsModule } from '../guilds/guilds.module';
import { ScheduledSnapshotsJob } from './scheduled-snapshots.job';
import { SnapshotCatalog } from './snapshot-catalog.service';
import { SnapshotGuildLookup } from './snapshot-guild.lookup';
import { SnapshotRetentionJob } from './snapshot-retention.job';
import { SnapshotService } from './snapshot.service';
import { SnapshotsController } from './snapshots.controller';

@Module({
  imports: [GuildsModule],
  controllers: [SnapshotsController],
  providers: [
    SnapshotService,
    SnapshotCatalog,
    SnapshotGuildLookup,
    ScheduledSnapshotsJob,
    SnapshotRetentionJob,
  ],
  exports: [SnapshotService, SnapshotGuildLookup, ScheduledSnapshotsJob, SnapshotRetentionJob],
})
export class SnapshotsModule {}
