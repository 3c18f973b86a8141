import { Module } from '@nestjs/common';
import { GuildsModule } from '../guilds/guilds.module';
import { ImageStore } from './images/image-store';
import { PostgresImageStore } from './images/postgres-image-store.repository';
import { ScheduledSnapshotsJob } from './scheduled-snapshots.job';
import { SnapshotCatalog } from './snapshot-catalog.service';
import { SnapshotExporter } from './snapshot-export';
import { DeletedSnapshotGuildLookup, SnapshotGuildLookup } from './snapshot-guild.lookup';
import { SnapshotRetentionJob } from './snapshot-retention.job';
import { SnapshotService } from './snapshot.service';
import { RecoveryEvents } from '../recovery-events';
import { ScheduledSnapshotRunsRepository } from './scheduled-snapshot-runs.repository';
import { SnapshotRetentionRepository } from './snapshot-retention.repository';
import { SnapshotsController } from './snapshots.controller';
import { SnapshotsRepository } from './snapshots.repository';

@Module({
  imports: [GuildsModule],
  controllers: [SnapshotsController],
  providers: [
    RecoveryEvents,
    SnapshotsRepository,
    { provide: ImageStore, useClass: PostgresImageStore },
    ScheduledSnapshotRunsRepository,
    SnapshotRetentionRepository,
    SnapshotService,
    SnapshotCatalog,
    SnapshotExporter,
    SnapshotGuildLookup,
    DeletedSnapshotGuildLookup,
    ScheduledSnapshotsJob,
    SnapshotRetentionJob,
  ],
  exports: [
    RecoveryEvents,
    SnapshotsRepository,
    ImageStore,
    SnapshotService,
    SnapshotGuildLookup,
    ScheduledSnapshotsJob,
    SnapshotRetentionJob,
  ],
})
export class SnapshotsModule {}
