import type { SessionInfo } from '@discordjs/ws';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** A saved session with the guilds its shard carried then. */
export interface SavedShard {
  session: SessionInfo;
  guildIds: string[];
}

/**
 * What live-sync replicas hand each other through Postgres (migration LiveSyncShards): each
 * shard's session for the next owner to resume, and the time each identify bucket last
 * identified, so the platform's one identify per bucket per 5 s holds across replicas.
 */
@Injectable()
export class ShardSessions {
  constructor(private readonly dataSource: DataSource) {}

  /** The shard's saved session, and the guilds it carried as of the session's sequence. */
  async load(shardCount: number, shardId: number): Promise<SavedShard | null> {
    const rows = await this.dataSource.query<
      { session_id: string; sequence: string; resume_url: string; guild_ids: string[] }[]
    >(
      `SELECT session_id, sequence::text AS sequence, resume_url, guild_ids::text[] AS guild_ids
         FROM recovery.live_sync_shard_sessions WHERE shard_count = $1 AND shard_id = $2`,
      [shardCount, shardId],
    );
    const [row] = rows;
    if (!row) return null;
    const session = {
      sessionId: row.session_id,
      sequence: Number(row.sequence),
      resumeURL: row.resume_url,
      shardId,
      shardCount,
    };
    return { session, guildIds: row.guild_ids };
  }

  /** Saves the session; with `guildIds`, the shard's guilds too (otherwise the saved ones stand). */
  async save(session: SessionInfo, guildIds?: string[]): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO recovery.live_sync_shard_sessions
         (shard_count, shard_id, session_id, sequence, resume_url, guild_ids)
       VALUES ($1, $2, $3, $4, $5, coalesce($6::bigint[], '{}'))
       ON CONFLICT (shard_count, shard_id) DO UPDATE
         SET session_id = EXCLUDED.session_id, sequence = EXCLUDED.sequence,
             resume_url = EXCLUDED.resume_url,
             guild_ids = coalesce($6::bigint[], live_sync_shard_sessions.guild_ids), updated_at = now()`,
      [
        session.shardCount,
        session.shardId,
        session.sessionId,
        session.sequence,
        session.resumeURL,
        guildIds ?? null,
      ],
    );
  }

  /** The session ended (invalid, or closed for good): the next owner identifies afresh. */
  async forget(shardCount: number, shardId: number): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM recovery.live_sync_shard_sessions WHERE shard_count = $1 AND shard_id = $2`,
      [shardCount, shardId],
    );
  }

  /**
   * Takes the bucket's identify turn when its last identify is at least `intervalMs` old, and
   * answers 0; otherwise answers how many ms to wait before asking again. The database's clock
   * decides, so replicas with skewed clocks still agree.
   */
  async takeIdentifyTurn(bucket: number, intervalMs: number): Promise<number> {
    const taken = await this.dataSource.query<unknown[]>(
      `INSERT INTO recovery.live_sync_identify_buckets AS b (bucket, identified_at) VALUES ($1, clock_timestamp())
       ON CONFLICT (bucket) DO UPDATE SET identified_at = clock_timestamp()
        WHERE b.identified_at <= clock_timestamp() - make_interval(secs => $2::double precision / 1000)
       RETURNING 1`,
      [bucket, intervalMs],
    );
    if (taken.length > 0) return 0;
    const [row] = await this.dataSource.query<{ wait_ms: number }[]>(
      `SELECT greatest(0, ceil(extract(epoch FROM identified_at
                + make_interval(secs => $2::double precision / 1000) - clock_timestamp()) * 1000))::int AS wait_ms
         FROM recovery.live_sync_identify_buckets WHERE bucket = $1`,
      [bucket, intervalMs],
    );
    return Math.max(row?.wait_ms ?? 0, 1);
  }
}
