import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { IdReplacement } from './restore-diff';

/**
 * `recovery.platform_id_replacements`: where a role or channel a restore recreated lives now, so
 * later comparisons and restores match the snapshot's ids to the new ones.
 */
@Injectable()
export class PlatformIdReplacementsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async record(guildId: string, jobId: string, replacement: IdReplacement): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO recovery.platform_id_replacements (guild_id, kind, original_id, replacement_id, restore_job_id)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (guild_id, kind, original_id)
         DO UPDATE SET replacement_id = EXCLUDED.replacement_id, restore_job_id = EXCLUDED.restore_job_id,
                       created_at = now()`,
      [guildId, replacement.kind, replacement.original_id, replacement.replacement_id, jobId],
    );
  }

  async ofGuild(guildId: string): Promise<IdReplacement[]> {
    return this.dataSource.query<IdReplacement[]>(
      `SELECT kind, original_id, replacement_id FROM recovery.platform_id_replacements WHERE guild_id = $1`,
      [guildId],
    );
  }

  /**
   * Deletes up to `limit` replacements no snapshot can refer to any more: those of a guild with no
   * snapshot taken before the replacement was made. A snapshot taken after it holds the new id
   * already; one taken before may hold the original (or the start of a chain, whose later links
   * are younger still, so they are kept with it).
   */
  async deleteUnreferenced(limit: number): Promise<number> {
    const [, deleted] = await this.dataSource.query<[unknown, number]>(
      `DELETE FROM recovery.platform_id_replacements WHERE ctid = ANY (ARRAY(
         SELECT r.ctid FROM recovery.platform_id_replacements r
          WHERE NOT EXISTS (SELECT 1 FROM recovery.snapshots s
                             WHERE s.guild_id = r.guild_id AND s.created_at < r.created_at)
          LIMIT $1
            FOR UPDATE OF r SKIP LOCKED))`,
      [limit],
    );
    return deleted;
  }
}
