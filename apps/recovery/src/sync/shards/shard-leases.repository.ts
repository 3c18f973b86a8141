import { driverPool } from '@lib/database';
import type { PoolClient, QueryConfig } from 'pg';
import { DataSource } from 'typeorm';

/**
 * Advisory-lock key spaces of live sync (the first of the two int4 keys; `pg_locks.classid`).
 * Members hold a SHARED lock on (MEMBER, shard count); a shard is an exclusive lock on
 * (SHARD, shard count << 16 | shard id); claims are serialised by a transaction lock on (CLAIM, 0).
 */
export const LIVE_SYNC_LOCK_SPACE = { MEMBER: 0x4c53_4d00, SHARD: 0x4c53_5300, CLAIM: 0x4c53_4300 } as const;
/** Shard counts stay below 2^15 so `count << 16 | id` fits an int4; the platform's stay far below. */
export const MAX_SHARD_COUNT = 32_767;
/** A statement on the lease connection that takes longer means the connection cannot be trusted. */
const LEASE_QUERY_TIMEOUT_MS = 3_000;

/** `pg` honours a per-statement `query_timeout` (its client option), which its types omit. */
type TimedQuery = QueryConfig & { query_timeout: number };

/** The live-sync locks held in this database right now, by whom (backend pid). */
export interface LeaseView {
  /** This connection's backend pid. */
  self: number;
  /** Backends that take part in live sync, by the shard count each one uses. */
  members: { pid: number; shardCount: number }[];
  /** Every shard held, by anyone. */
  shards: { pid: number; shardCount: number; shardId: number }[];
}

function shardKey(shardCount: number, shardId: number): number {
  return (shardCount << 16) | shardId;
}

/**
 * Live sync's shard ownership as Postgres session advisory locks
 * (docs/decisions/live-sync-across-replicas.md). The locks live on ONE dedicated connection per
 * replica: they are released when it closes, whether the replica unlocks them, shuts down, or dies (a SIGKILLed process's
 * socket is closed by its kernel, and Postgres ends the session at once). Nothing else is kept:
 * `pg_locks` answers who holds what.
 */
export class ShardLeases {
  private client: PoolClient | undefined;
  private broken = false;

  constructor(private readonly dataSource: DataSource) {}

  /** Whether the lease connection is open and has not failed: only then are the claims ours. */
  get connected(): boolean {
    return this.client !== undefined && !this.broken;
  }

  /** Opens the dedicated connection (closing any before it): no claims yet. */
  async open(): Promise<void> {
    await this.close();
    const client = await driverPool(this.dataSource).connect();
    this.broken = false;
    // A connection error is noticed here at once; the next statement would fail anyway.
    client.on('error', () => (this.broken = true));
    this.client = client;
  }

  /** Takes part in live sync with `shardCount` shards: the members are what shards are spread over. */
  async join(shardCount: number): Promise<void> {
    await this.run('SELECT pg_advisory_lock_shared($1, $2)', [LIVE_SYNC_LOCK_SPACE.MEMBER, shardCount]);
  }

  /** Who holds what; throws when the connection fails (the caller then stops every shard). */
  async view(): Promise<LeaseView> {
    const rows = await this.run<{ classid: string; objid: string; pid: number; self: number }>(
      `SELECT l.classid::text AS classid, l.objid::text AS objid, l.pid, pg_backend_pid() AS self
         FROM pg_locks l
        WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
          AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
          AND l.classid IN ($1::oid, $2::oid)`,
      [LIVE_SYNC_LOCK_SPACE.MEMBER, LIVE_SYNC_LOCK_SPACE.SHARD],
    );
    const view: LeaseView = { self: 0, members: [], shards: [] };
    const [first] = rows;
    view.self = first ? first.self : await this.backendPid();
    for (const row of rows) {
      const objid = Number(row.objid);
      if (Number(row.classid) === LIVE_SYNC_LOCK_SPACE.MEMBER) {
        view.members.push({ pid: row.pid, shardCount: objid });
      } else {
        view.shards.push({ pid: row.pid, shardCount: objid >>> 16, shardId: objid & 0xffff });
      }
    }
    return view;
  }

  /**
   * Takes each of `shardIds` that nobody holds, one claim at a time across replicas, and only
   * while no replica holds a shard of another count: two counts at once would follow guilds twice.
   * Returns the shards taken.
   */
  async claim(shardCount: number, shardIds: number[]): Promise<number[]> {
    if (shardIds.length === 0) return [];
    await this.run('BEGIN');
    try {
      await this.run('SELECT pg_advisory_xact_lock($1, 0)', [LIVE_SYNC_LOCK_SPACE.CLAIM]);
      const other = await this.run<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_locks l
          WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2 AND l.classid = $1::oid
            AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
            AND (l.objid::text::bigint >> 16) <> $2`,
        [LIVE_SYNC_LOCK_SPACE.SHARD, shardCount],
      );
      const taken: number[] = [];
      if (other[0].n === 0) {
        for (const shardId of shardIds) {
          const [row] = await this.run<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS ok', [
            LIVE_SYNC_LOCK_SPACE.SHARD,
            shardKey(shardCount, shardId),
          ]);
          if (row.ok) taken.push(shardId);
        }
      }
      await this.run('COMMIT');
      return taken;
    } catch (error) {
      // The locks taken stay with the session, which the caller ends on this failure.
      await this.run('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }

  async release(shardCount: number, shardId: number): Promise<void> {
    await this.run('SELECT pg_advisory_unlock($1, $2)', [
      LIVE_SYNC_LOCK_SPACE.SHARD,
      shardKey(shardCount, shardId),
    ]);
  }

  /** Ends the session, and with it every lock it holds. */
  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    // `release(true)` destroys the connection rather than returning it, locks and all, to the pool.
    client?.release(true);
    await Promise.resolve();
  }

  private async backendPid(): Promise<number> {
    const [row] = await this.run<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    return row.pid;
  }

  private async run<T = unknown>(text: string, values: unknown[] = []): Promise<T[]> {
    const client = this.client;
    if (!client || this.broken) throw new Error('the live-sync lease connection is closed');
    try {
      const query: TimedQuery = { text, values, query_timeout: LEASE_QUERY_TIMEOUT_MS };
      return (await client.query<T & object>(query)).rows;
    } catch (error) {
      this.broken = true;
      throw error;
    }
  }
}
