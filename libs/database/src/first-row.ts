/** What runs a statement: the DataSource, or a transaction's EntityManager. */
interface Queryable {
  query<T>(sql: string, parameters?: unknown[]): Promise<T>;
}

/** The first row a statement returns, or null when it returns none (a lookup by key, say). */
export async function firstRow<Row>(
  runner: Queryable,
  sql: string,
  parameters?: unknown[],
): Promise<Row | null> {
  const [row] = await runner.query<Row[]>(sql, parameters);
  return row ?? null;
}
