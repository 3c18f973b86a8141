import 'reflect-metadata';
import { createServiceDataSource, provisionServiceRole, runServiceMigrations } from '@lib/database';
import { Client } from 'pg';
import { SERVICE_DATABASES, type ServiceName, serviceDatabaseUrlVariable } from './service-databases';

/**
 * `npm run migrate [service...]`: applies every service's migrations (or the named ones) to the
 * database of DATABASE_URL, creating the database first when it does not exist.
 *
 * DATABASE_URL is the administrator's login. Where `<SERVICE>_DATABASE_URL` (e.g.
 * `BILLING_DATABASE_URL`) names the service's own login, that role is created or updated first
 * (its password, its schema and nothing else; `provisionServiceRole`) and the service's migrations
 * run as it, so it owns its tables; this is how the deployment runs. Without it, they run as the
 * administrator (a developer's single-login database).
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

/** Each service's own login as the environment names it, where it does. */
export function serviceDatabaseUrls(env: NodeJS.ProcessEnv): Partial<Record<ServiceName, string>> {
  const urls: Partial<Record<ServiceName, string>> = {};
  for (const service of Object.keys(SERVICE_DATABASES) as ServiceName[]) {
    const url = env[serviceDatabaseUrlVariable(service)];
    if (url) urls[service] = url;
  }
  return urls;
}

export async function migrate(
  url: string,
  services: ServiceName[],
  serviceUrls: Partial<Record<ServiceName, string>> = {},
): Promise<void> {
  await ensureDatabase(url);
  const admin = new Client({ connectionString: url });
  await admin.connect();
  try {
    for (const service of services) {
      const database = SERVICE_DATABASES[service];
      const own = serviceUrls[service];
      const role = own ? await provisionServiceRole(admin, database.schema, own) : undefined;
      const dataSource = createServiceDataSource({ ...database, url: own ?? url, poolSize: 2 });
      await dataSource.initialize();
      try {
        const applied = await runServiceMigrations(dataSource, database.schema);
        const done = applied.length ? applied.join(', ') : 'up to date';
        process.stdout.write(`${service}: ${done}${role ? ` (as ${role})` : ''}\n`);
      } finally {
        await dataSource.destroy();
      }
    }
  } finally {
    await admin.end();
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
  migrate(url, services, serviceDatabaseUrls(process.env)).catch((error: unknown) => {
    process.stderr.write(`migration failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
}
