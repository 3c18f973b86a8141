import { ScheduledPass } from '@lib/runtime';
import { SchedulerRegistry } from '@nestjs/schedule';
import type { DataSource } from 'typeorm';
import type { KeyValueStore } from './key-value-store';

export interface PostgresKeyValueStoreOptions {
  /** The service's schema; its `key_values` table is made by `keyValueTableSql`. */
  schema: string;
  /** How often expired rows are deleted. */
  purgeIntervalMs?: number;
  /** The app's scheduler registry, where the purge is listed; one of its own without. */
  scheduler?: SchedulerRegistry;
}

const DEFAULT_PURGE_INTERVAL_MS = 60_000;
const PURGE_BATCH = 5_000;
const SCHEMA_NAME = /^[a-z_][a-z0-9_]*$/;

/**
 * KeyValueStore over a `<schema>.key_values` table, for standalone mode (no Redis). Each operation
 * is one statement, so it is atomic without a transaction; a row past its `expires_at` counts as
 * absent everywhere and is overwritten in place by the next writer. A scheduled pass deletes
 * expired rows so the table holds only live keys (plus at most one interval's worth of expired ones).
 */
export class PostgresKeyValueStore implements KeyValueStore {
  private readonly table: string;
  private readonly purge: ScheduledPass;

  constructor(
    private readonly dataSource: DataSource,
    options: PostgresKeyValueStoreOptions,
  ) {
    if (!SCHEMA_NAME.test(options.schema)) throw new Error(`not a schema name: ${options.schema}`);
    this.table = `"${options.schema}".key_values`;
    this.purge = new ScheduledPass(
      options.scheduler ?? new SchedulerRegistry(),
      `key-value-purge(${options.schema})`,
      async () => void (await this.purgeExpired()),
    );
    // Housekeeping only: it must not keep a process (or a test) alive.
    this.purge.every(options.purgeIntervalMs ?? DEFAULT_PURGE_INTERVAL_MS, { unref: true });
  }

  async set(key: string, value: string, ttlSeconds: number): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO ${this.table} AS kv (key, value, expires_at)
       VALUES ($1, $2, now() + make_interval(secs => $3))
       ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, expires_at = EXCLUDED.expires_at`,
      [key, value, ttlSeconds],
    );
  }

  async setIfAbsent(key: string, value: string, ttlSeconds: number): Promise<boolean> {
    // A live row makes the update's WHERE false: no row is returned. Concurrent callers queue on
    // the key's index entry or row lock and each sees the winner's row when its turn comes.
    const rows = await this.dataSource.query<unknown[]>(
      `INSERT INTO ${this.table} AS kv (key, value, expires_at)
       VALUES ($1, $2, now() + make_interval(secs => $3))
       ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, expires_at = EXCLUDED.expires_at
        WHERE kv.expires_at <= now()
       RETURNING 1`,
      [key, value, ttlSeconds],
    );
    return rows.length === 1;
  }

  async get(key: string): Promise<string | null> {
    const [row] = await this.dataSource.query<{ value: string }[]>(
      `SELECT value FROM ${this.table} WHERE key = $1 AND expires_at > now()`,
      [key],
    );
    return row?.value ?? null;
  }

  async take(key: string): Promise<string | null> {
    const [rows] = await this.dataSource.query<[{ value: string }[], number]>(
      `DELETE FROM ${this.table} WHERE key = $1 AND expires_at > now() RETURNING value`,
      [key],
    );
    return rows[0]?.value ?? null;
  }

  async delete(key: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM ${this.table} WHERE key = $1`, [key]);
  }

  async increment(key: string, ttlMs: number): Promise<number> {
    const [row] = await this.dataSource.query<{ value: string }[]>(
      `INSERT INTO ${this.table} AS kv (key, value, expires_at)
       VALUES ($1, '1', now() + make_interval(secs => $2::double precision / 1000))
       ON CONFLICT (key) DO UPDATE
          SET value = CASE WHEN kv.expires_at <= now() THEN '1' ELSE (kv.value::bigint + 1)::text END,
              expires_at = CASE WHEN kv.expires_at <= now() THEN EXCLUDED.expires_at ELSE kv.expires_at END
       RETURNING value`,
      [key, ttlMs],
    );
    return Number(row.value);
  }

  async ping(): Promise<void> {
    // The table, not just the connection: a database without the migration cannot serve.
    await this.dataSource.query(`SELECT 1 FROM ${this.table} LIMIT 1`);
  }

  /** Deletes expired rows in batches; returns how many. Replicas purging at once skip each other's rows. */
  async purgeExpired(): Promise<number> {
    let total = 0;
    for (;;) {
      const [, deleted] = await this.dataSource.query<[unknown, number]>(
        `DELETE FROM ${this.table} WHERE key IN (
           SELECT key FROM ${this.table} WHERE expires_at <= now() LIMIT $1 FOR UPDATE SKIP LOCKED)`,
        [PURGE_BATCH],
      );
      total += deleted;
      if (deleted < PURGE_BATCH) return total;
    }
  }

  /** Takes the purge off the scheduler and waits for the one in flight. */
  async close(): Promise<void> {
    await this.purge.stop();
  }
}
