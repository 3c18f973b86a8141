/**
 * DDL of a service's `key_values` table (PostgresKeyValueStore), used by that service's migration.
 * The index on `expires_at` serves the purge of expired rows.
 */
export function keyValueTableSql(schema: string): string[] {
  return [
    `CREATE TABLE "${schema}".key_values (
      key text PRIMARY KEY,
      value text NOT NULL,
      expires_at timestamptz NOT NULL
    )`,
    `CREATE INDEX key_values_expires_at_idx ON "${schema}".key_values (expires_at)`,
  ];
}

export function dropKeyValueTableSql(schema: string): string[] {
  return [`DROP TABLE "${schema}".key_values`];
}
