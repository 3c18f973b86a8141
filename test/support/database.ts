import { processedEventsTableSql } from '@lib/messaging';
import { outboxTableSql } from '@lib/outbox';
import { DataSource } from 'typeorm';

export async function openDataSource(schema = 'public'): Promise<DataSource> {
  const dataSource = new DataSource({
    type: 'postgres',
    url: process.env.DATABASE_URL,
    schema,
    extra: { max: 5 },
  });
  return dataSource.initialize();
}

/** A throwaway schema with an outbox and a processed_events table, so tests don't share rows. */
export async function createScratchSchema(dataSource: DataSource, prefix: string): Promise<string> {
  const schema = `${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 6)}`;
  await dataSource.query(`CREATE SCHEMA "${schema}"`);
  for (const sql of [...outboxTableSql(schema), ...processedEventsTableSql(schema)])
    await dataSource.query(sql);
  await dataSource.query(
    `CREATE TABLE "${schema}".effects (event_id text NOT NULL, applied_at timestamptz DEFAULT now())`,
  );
  return schema;
}

export async function dropSchema(dataSource: DataSource, schema: string): Promise<void> {
  await dataSource.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
}
