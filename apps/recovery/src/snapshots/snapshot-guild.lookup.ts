import { Injectable } from '@nestjs/common';
import type { GuildResourceLookup } from '@lib/guild-access';
import { NotFoundError } from '@lib/problem-details';
import { DataSource } from 'typeorm';

export function snapshotNotFound(): NotFoundError {
  return new NotFoundError('ErrSnapshotNotFound', 'Snapshot');
}

/**
 * Which guild's managers may see a snapshot, for the routes that name one (by path or by
 * `snapshot_id`). To anyone else it answers as a missing one, so ids cannot be probed.
 */
@Injectable()
export class SnapshotGuildLookup implements GuildResourceLookup {
  constructor(private readonly dataSource: DataSource) {}

  async find(snapshotId: string): Promise<{ guildId: string } | null> {
    const [row] = await this.dataSource.query<{ guild_id: string }[]>(
      `SELECT guild_id FROM recovery.snapshots WHERE id = $1`,
      [snapshotId],
    );
    return row ? { guildId: row.guild_id } : null;
  }

  notFound(): NotFoundError {
    return snapshotNotFound();
  }
}
