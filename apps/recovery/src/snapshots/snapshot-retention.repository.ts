import { Injectable } from '@nestjs/common';
import { exclusively } from '@lib/database';
import { DataSource } from 'typeorm';

/** The advisory lock that makes one replica run the job. */
const LOCK_NAME = 'retention:recovery.snapshots';

const NOT_IN_USE = `NOT EXISTS (SELECT 1 FROM recovery.restore_jobs j
                                 WHERE j.snapshot_id = s.id AND j.status IN ('pending', 'running'))`;

/** The deletes snapshot retention runs, never touching a snapshot a pending or running restore reads. */
@Injectable()
export class SnapshotRetentionRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Runs `work` while this process holds the job's session advisory lock, or answers null at once
   * when another replica holds it.
   */
  exclusively<T>(work: () => Promise<T>): Promise<T | null> {
    return exclusively(this.dataSource, LOCK_NAME, work);
  }

  /** Deletes up to `limit` snapshots of `trigger` created before `cutoff`; returns how many went. */
  async deleteOlderThan(trigger: 'antinuke' | 'pre_restore', cutoff: Date, limit: number): Promise<number> {
    const [, deleted] = await this.dataSource.query<[unknown, number]>(
      `DELETE FROM recovery.snapshots WHERE id IN (
         SELECT s.id FROM recovery.snapshots s
          WHERE s.trigger = $1 AND s.created_at < $2 AND ${NOT_IN_USE}
          LIMIT $3)`,
      [trigger, cutoff, limit],
    );
    return deleted;
  }

  /** Purges up to `limit` snapshots deleted before `cutoff` (their grace period over); returns how many went. */
  async purgeDeletedBefore(cutoff: Date, limit: number): Promise<number> {
    const [, deleted] = await this.dataSource.query<[unknown, number]>(
      `DELETE FROM recovery.snapshots WHERE id IN (
         SELECT s.id FROM recovery.snapshots s
          WHERE s.deleted_at < $1 AND ${NOT_IN_USE}
          LIMIT $2)`,
      [cutoff, limit],
    );
    return deleted;
  }

  /** The guilds holding scheduled snapshots created before `cutoff`. */
  async guildsWithScheduledBefore(cutoff: Date): Promise<string[]> {
    const guilds = await this.dataSource.query<{ guild_id: string }[]>(
      `SELECT DISTINCT guild_id FROM recovery.snapshots
        WHERE trigger = 'scheduled' AND created_at < $1`,
      [cutoff],
    );
    return guilds.map((row) => row.guild_id);
  }

  /** Deletes the guild's oldest `limit` scheduled snapshots created before `cutoff`; returns how many went. */
  async deleteScheduledOlderThan(guildId: string, cutoff: Date, limit: number): Promise<number> {
    const [, deleted] = await this.dataSource.query<[unknown, number]>(
      `DELETE FROM recovery.snapshots WHERE ctid = ANY (ARRAY(
         SELECT s.ctid FROM recovery.snapshots s
          WHERE s.guild_id = $1 AND s.trigger = 'scheduled' AND s.created_at < $2 AND ${NOT_IN_USE}
          ORDER BY s.created_at
          LIMIT $3
            FOR UPDATE OF s SKIP LOCKED))`,
      [guildId, cutoff, limit],
    );
    return deleted;
  }
}
