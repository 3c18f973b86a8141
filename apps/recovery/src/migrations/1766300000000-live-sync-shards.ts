import { StatementMigration } from '@lib/database';

/**
 * Live sync across replicas (docs/decisions/live-sync-across-replicas.md). Which replica follows which gateway shard is held in
 * Postgres advisory locks, not in a table; these two tables are what replicas hand each other:
 * - `live_sync_shard_sessions`: a shard's gateway session (id, last sequence, resume address),
 *   saved by its owner with the guilds the shard carried as of that sequence, so the next owner
 *   RESUMEs it, the platform replays what was missed, and the new owner knows the shard's guilds
 *   (a resumed session gets no GUILD_CREATEs);
 * - `live_sync_identify_buckets`: when each identify bucket (`shard_id % max_concurrency`) last
 *   identified, since the platform allows one identify per bucket per 5 s for the whole bot,
 *   whichever replica sends it.
 */
export class LiveSyncShards1766300000000 extends StatementMigration {
  name = 'LiveSyncShards1766300000000';

  protected readonly upStatements = [
    `
      CREATE TABLE recovery.live_sync_shard_sessions (
        shard_count integer NOT NULL CHECK (shard_count >= 1),
        shard_id integer NOT NULL CHECK (shard_id >= 0 AND shard_id < shard_count),
        session_id text NOT NULL,
        sequence bigint NOT NULL CHECK (sequence >= 0),
        resume_url text NOT NULL,
        guild_ids bigint[] NOT NULL DEFAULT '{}',
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (shard_count, shard_id)
      )`,
    `
      CREATE TABLE recovery.live_sync_identify_buckets (
        bucket integer PRIMARY KEY CHECK (bucket >= 0),
        identified_at timestamptz NOT NULL
      )`,
  ];

  protected readonly downStatements = [
    `DROP TABLE recovery.live_sync_identify_buckets`,
    `DROP TABLE recovery.live_sync_shard_sessions`,
  ];
}
