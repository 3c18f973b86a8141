import 'reflect-metadata';
import { createServiceDataSource, runServiceMigrations } from '@lib/database';
import { Client } from 'pg';
import { SERVICE_DATABASES, type ServiceName } from './service-databases';

/**
 * `npm run migrate [service...]`: applies every service's migrations (or the named ones) to
 * DATABASE_URL, creating the database first when it does not exist.
 */
async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount === 0) {
      await client
        .query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`)
        .catch((error: { code?: string }) => {
          if (error.code !== '42P04') throw error; // created by a concurrent run
        });
    }
  } finally {
    await client.end();
  }
}

export async function migrate(url: string, services: ServiceName[]): Promise<void> {
  await ensureDatabase(url);
  for (const service of services) {
    const database = SERVICE_DATABASES[service];
    const dataSource = createServiceDataSource({ ...database, url, poolSize: 2 });
    await dataSource.initialize();
    try {
      const applied = await runServiceMigrations(dataSource, database.schema);
      process.stdout.write(`${service}: ${applied.length ? applied.join(', ') : 'up to date'}\n`);
    } finally {
      await dataSource.destroy();
    }
  }
}

if (require.main === module) {
  const url = process.env.DATABASE_URL;
  if (!url) {
    process.stderr.write('DATABASE_URL is not set\n');
    process.exit(1);
  }
  const requested = process.argv.slice(2);
  const unknown = requested.filter((name) => !(name in SERVICE_DATABASES));
  if (unknown.length) {
    process.stderr.write(`unknown service(s): ${unknown.join(', ')}\n`);
    process.exit(1);
  }
  const services = (requested.length ? requested : Object.keys(SERVICE_DATABASES)) as ServiceName[];
  migrate(url, services).catch((error: unknown) => {
    process.stderr.write(`migration failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
}
