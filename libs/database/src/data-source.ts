import { DataSource, type DataSourceOptions, type MixedList } from 'typeorm';
import type { Pool } from 'pg';

export interface ServiceDatabaseOptions {
  /** The service's own Postgres schema; it never reads another's. */
  schema: string;
  url: string;
  entities: MixedList<Function>;
  migrations: MixedList<Function>;
  /** Pool size per process; each replica gets its own pool. */
  poolSize?: number;
  applicationName?: string;
}

export function serviceDataSourceOptions(options: ServiceDatabaseOptions): DataSourceOptions {
  return {
    type: 'postgres',
    url: options.url,
    schema: options.schema,
    entities: options.entities,
    migrations: options.migrations,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    // Schema changes only through reviewed migrations.
    synchronize: false,
    migrationsRun: false,
    logging: ['error', 'warn'],
    extra: {
      max: options.poolSize ?? 10,
      application_name: options.applicationName ?? options.schema,
      connectionTimeoutMillis: 5_000,
    },
  };
}

export function createServiceDataSource(options: ServiceDatabaseOptions): DataSource {
  return new DataSource(serviceDataSourceOptions(options));
}

/**
 * sql-placement-exempt: schema administration before any migration runs (an advisory lock, CREATE
 * SCHEMA), not data access; it belongs beside the migration runner it serialises.
 *
 * Creates the schema and applies pending migrations. An advisory lock per schema makes several
 * replicas starting at once apply each migration exactly once.
 */
export async function runServiceMigrations(dataSource: DataSource, schema: string): Promise<string[]> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock(hashtext($1))', [`migrations:${schema}`]);
    // Only when missing: a service's own login may use its schema but not create schemas, and
    // CREATE SCHEMA IF NOT EXISTS checks that right even when the schema exists.
    const found = (await runner.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [
      schema,
    ])) as unknown[];
    if (found.length === 0) await runner.query(`CREATE SCHEMA "${schema}"`);
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    return applied.map((migration) => migration.name);
  } finally {
    await runner
      .query('SELECT pg_advisory_unlock(hashtext($1))', [`migrations:${schema}`])
      .catch(() => undefined);
    await runner.release();
  }
}

/**
 * The `pg` pool a DataSource runs on (after `initialize`), for a hot path's plain statements: the same
 * connections and settings, without the query runner TypeORM builds and releases around each one.
 */
export function driverPool(dataSource: DataSource): Pool {
  const pool = (dataSource.driver as unknown as { master?: Pool }).master;
  if (!pool) throw new Error('driverPool: the DataSource is not a postgres one, or is not initialized');
  return pool;
}
