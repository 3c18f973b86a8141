import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** A guild of the audit log and the time of its oldest entry. */
export interface GuildOldestEntry {
  guild_id: string;
  oldest: Date;
}

/**
 * The statements of the audit log's retention (audit-log-retention.ts). Both walk the index
 * `audit_log_guild_idx (guild_id, occurred_at DESC, event_id DESC)`; neither reads the table whole.
 */
@Injectable()
export class AuditLogRetentionRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Up to `limit` guilds of the audit log after `afterGuildId` in guild id order ('' for the first
   * page), each with its oldest entry's time. A loose index scan: the recursive CTE jumps from one
   * guild id to the next through the index (one probe per guild, not one row per entry), and each
   * guild's oldest entry is the last index entry under its id.
   */
  async guildsAfter(afterGuildId: string, limit: number): Promise<GuildOldestEntry[]> {
    return this.dataSource.query<GuildOldestEntry[]>(
      `WITH RECURSIVE guilds (guild_id, n) AS (
         (SELECT guild_id, 1 FROM notification.audit_log
           WHERE guild_id > $1
           ORDER BY guild_id
           LIMIT 1)
         UNION ALL
         SELECT (SELECT a.guild_id FROM notification.audit_log a
                  WHERE a.guild_id > g.guild_id
                  ORDER BY a.guild_id
                  LIMIT 1),
                g.n + 1
           FROM guilds g
          WHERE g.guild_id IS NOT NULL AND g.n < $2
       )
       SELECT g.guild_id,
              (SELECT a.occurred_at FROM notification.audit_log a
                WHERE a.guild_id = g.guild_id
                ORDER BY a.occurred_at, a.event_id
                LIMIT 1) AS oldest
         FROM guilds g
        WHERE g.guild_id IS NOT NULL
        ORDER BY g.guild_id`,
      [afterGuildId, limit],
    );
  }

  /**
   * Deletes up to `limit` of the guild's entries that occurred before `cutoff`, oldest first, and
   * answers how many went. Rows another transaction holds are skipped, not waited for.
   */
  async deleteOlderThan(guildId: string, cutoff: Date, limit: number): Promise<number> {
    const [, deleted] = await this.dataSource.query<[unknown, number]>(
      `DELETE FROM notification.audit_log WHERE ctid = ANY (ARRAY(
         SELECT ctid FROM notification.audit_log
          WHERE guild_id = $1 AND occurred_at < $2
          ORDER BY occurred_at, event_id
          LIMIT $3
          FOR UPDATE SKIP LOCKED))`,
      [guildId, cutoff, limit],
    );
    return deleted;
  }
}
