import { Injectable } from '@nestjs/common';
import type { GuildResourceLookup } from '@lib/guild-access';
import type { DomainError } from '@lib/problem-details';
import { SnapshotErrors } from './snapshots.errors';
import { SnapshotsRepository } from './snapshots.repository';

/**
 * Which guild's managers may see a snapshot, for the routes that name one (by path or by
 * `snapshot_id`). To anyone else it answers as a missing one, so ids cannot be probed.
 */
@Injectable()
export class SnapshotGuildLookup implements GuildResourceLookup {
  constructor(private readonly snapshots: SnapshotsRepository) {}

  async find(snapshotId: string): Promise<{ guildId: string } | null> {
    const guildId = await this.snapshots.guildOf(snapshotId);
    return guildId ? { guildId } : null;
  }

  notFound(): DomainError {
    return SnapshotErrors.notFound();
  }
}

/**
 * The guild of a deleted snapshot, for the route that undoes the delete; a snapshot not deleted
 * (or purged) answers as missing.
 */
@Injectable()
export class DeletedSnapshotGuildLookup implements GuildResourceLookup {
  constructor(private readonly snapshots: SnapshotsRepository) {}

  async find(snapshotId: string): Promise<{ guildId: string } | null> {
    const guildId = await this.snapshots.guildOf(snapshotId, { deleted: true });
    return guildId ? { guildId } : null;
  }

  notFound(): DomainError {
    return SnapshotErrors.notFound();
  }
}
