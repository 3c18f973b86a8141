import type { DataSource } from 'typeorm';
import { driverPool } from './data-source';

/**
 * Runs `work` while this process holds the session advisory lock `name` (keyed by
 * `hashtext(name)`) on a connection of its own, so that of several replicas only one runs it at a
 * time; answers null at once, without running it, when another session holds the lock.
 *
 * The lock lives as long as its connection: a replica killed mid-work loses it with its socket. A
 * connection that cannot unlock is handed back to the pool as broken, which ends its session and
 * so the lock.
 *
 * sql-placement-exempt: a lock on a name, no data access.
 */
export async function exclusively<T>(
  dataSource: DataSource,
  name: string,
  work: () => Promise<T>,
): Promise<T | null> {
  const client = await driverPool(dataSource).connect();
  let broken: Error | undefined;
  try {
    const {
      rows: [{ locked }],
    } = await client.query<{ locked: boolean }>(`SELECT pg_try_advisory_lock(hashtext($1)) AS locked`, [
      name,
    ]);
    if (!locked) return null;
    try {
      return await work();
    } finally {
      await client
        .query(`SELECT pg_advisory_unlock(hashtext($1))`, [name])
        .catch((error: Error) => (broken = error));
    }
  } finally {
    client.release(broken);
  }
}
