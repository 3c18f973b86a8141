import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { migrate } from '../../scripts/migrate';
import { SERVICE_DATABASES, type ServiceName } from '../../scripts/service-databases';

/** `url` with its database name replaced by `name`. */
export function databaseUrl(url: string, name: string): string {
  const target = new URL(url);
  target.pathname = `/${name}`;
  return target.toString();
}

async function onServer<T>(url: string, work: (admin: Client, name: string) => Promise<T>): Promise<T> {
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  const admin = new Client({ connectionString: databaseUrl(url, 'postgres') });
  await admin.connect();
  try {
    return await work(admin, name);
  } finally {
    await admin.end();
  }
}

/** Drops the database of `url` (if any) and creates it again with every service's migrations, as `npm run migrate` applies them. */
export async function freshDatabase(url: string): Promise<void> {
  await dropDatabase(url);
  await migrate(url, Object.keys(SERVICE_DATABASES) as ServiceName[]);
}

export async function dropDatabase(url: string): Promise<void> {
  await onServer(url, (admin, name) =>
    admin.query(`DROP DATABASE IF EXISTS "${name.replace(/"/g, '""')}" WITH (FORCE)`),
  );
}

/** A DataSource as the apps' (every query names its schema), without entities. */
export function openGrowthDataSource(url: string, max = 4): Promise<DataSource> {
  return new DataSource({ type: 'postgres', url, extra: { max } }).initialize();
}

export async function withClient<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
