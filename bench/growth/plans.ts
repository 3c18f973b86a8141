import { Client } from 'pg';

/**
 * Query plans of what the application really sends: while `capturePlans` runs, every data
 * statement a pg client is given (SELECT, INSERT, UPDATE, DELETE, WITH) is first sent on the same
 * connection as `EXPLAIN (FORMAT JSON, VERBOSE)` with the same parameters, and the plan recorded.
 * EXPLAIN without ANALYZE does not execute the statement; the statement itself then runs as usual
 * (pg runs a client's queries in order, so the EXPLAIN sees the same transaction).
 */
export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  Schema?: string;
  'Index Name'?: string;
  Operation?: string;
  'Plan Rows'?: number;
  'Conflict Arbiter Indexes'?: string[];
  'Index Cond'?: string;
  Filter?: string;
  Plans?: PlanNode[];
}

export interface CapturedPlan {
  sql: string;
  params: unknown[] | undefined;
  plan: PlanNode;
}

const DATA_STATEMENT = /^\s*(SELECT|INSERT|UPDATE|DELETE|WITH)\b/i;

/** The statement's plan as `EXPLAIN` gives it on `client` now (e.g. inside a transaction that dropped an index). */
export async function explain(client: Client, sql: string, params: unknown[] | undefined): Promise<PlanNode> {
  const { rows } = await client.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(
    `EXPLAIN (FORMAT JSON, VERBOSE) ${sql}`,
    params,
  );
  return rows[0]['QUERY PLAN'][0].Plan;
}

type QueryFunction = (this: Client, ...args: unknown[]) => unknown;

export async function capturePlans(work: () => Promise<void>): Promise<CapturedPlan[]> {
  const prototype = Client.prototype as unknown as { query: QueryFunction };
  const original = prototype.query;
  const captured: CapturedPlan[] = [];
  const pending: Promise<void>[] = [];
  prototype.query = function (this: Client, ...args: unknown[]) {
    const [config, values] = args as [unknown, unknown];
    const text =
      typeof config === 'string' ? config : ((config as { text?: string } | undefined)?.text ?? undefined);
    if (text && DATA_STATEMENT.test(text)) {
      const params = Array.isArray(values) ? values : (config as { values?: unknown[] }).values;
      pending.push(
        (
          original.call(this, `EXPLAIN (FORMAT JSON, VERBOSE) ${text}`, params) as Promise<{
            rows: { 'QUERY PLAN': { Plan: PlanNode }[] }[];
          }>
        ).then((result) => {
          captured.push({ sql: text, params, plan: result.rows[0]['QUERY PLAN'][0].Plan });
        }),
      );
    }
    return original.apply(this, args);
  };
  try {
    await work();
  } finally {
    prototype.query = original;
  }
  await Promise.all(pending);
  return captured;
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

function relation(node: PlanNode): string | undefined {
  return node['Relation Name'] ? `${node.Schema ?? '?'}.${node['Relation Name']}` : undefined;
}

/** Scans that reach their rows through an index. */
const INDEXED = new Set(['Index Scan', 'Index Only Scan', 'Bitmap Heap Scan', 'Bitmap Index Scan']);
const SCANS = new Set([
  'Seq Scan',
  'Index Scan',
  'Index Only Scan',
  'Bitmap Heap Scan',
  'Tid Scan',
  'Sample Scan',
]);

export interface PlanVerdict {
  problems: string[];
  /** One line: each statement's scans, e.g. `Index Scan audit_log_guild_idx`. */
  summary: string;
}

/**
 * A statement's plan is bounded when no table of `large` is read by a sequential scan or by a
 * walk of a whole index through a filter (a partial index is a queue of the rows in one state, such
 * as the unsent outbox rows: walking it is the design), no Sort
 * takes more than `maxSortRows` estimated rows (a sort of a bounded index range is fine; a sort
 * of a table is not), and `table` is reached by an index (or written: an INSERT's conflict check
 * goes through its arbiter indexes).
 */
export function judgePlans(
  plans: CapturedPlan[],
  table: string,
  large: ReadonlySet<string>,
  maxSortRows: number,
  partial: ReadonlySet<string>,
): PlanVerdict {
  const problems: string[] = [];
  const parts: string[] = [];
  let reached = false;
  for (const { sql, plan } of plans) {
    const all = nodes(plan);
    const first = sql.trim().split(/\s+/).slice(0, 3).join(' ');
    for (const node of all) {
      const name = relation(node);
      if (node['Node Type'] === 'Seq Scan' && name && large.has(name)) {
        problems.push(`Seq Scan on ${name} in "${first} ..."`);
      }
      // A walk of a whole index, keeping what a filter lets through: as long as the table when the
      // filter is rare (e.g. ORDER BY seq for the unsent rows, without the partial index on them).
      if (
        name &&
        large.has(name) &&
        (node['Node Type'] === 'Index Scan' || node['Node Type'] === 'Index Only Scan') &&
        !node['Index Cond'] &&
        node.Filter &&
        !partial.has(node['Index Name'] ?? '')
      ) {
        problems.push(`whole ${node['Index Name']} filtered (${node.Filter}) in "${first} ..."`);
      }
      if (node['Node Type'] === 'Sort') {
        const input = node.Plans?.[0]?.['Plan Rows'] ?? 0;
        if (input > maxSortRows) problems.push(`Sort of ~${input} rows in "${first} ..."`);
      }
      if (name === table && INDEXED.has(node['Node Type'])) reached = true;
      if (name === table && node['Node Type'] === 'ModifyTable' && node.Operation === 'Insert')
        reached = true;
    }
    const scans = all
      .filter((node) => SCANS.has(node['Node Type']) || node['Node Type'] === 'Bitmap Index Scan')
      .filter((node) => node['Node Type'] !== 'Bitmap Heap Scan')
      .map((node) => `${node['Node Type']} ${node['Index Name'] ?? node['Relation Name'] ?? ''}`.trim());
    const top = plan['Node Type'] === 'ModifyTable' ? `${plan.Operation}` : plan['Node Type'];
    parts.push(scans.length ? `${top}: ${scans.join(', ')}` : top);
  }
  if (plans.length === 0) problems.push('no statement was captured');
  else if (!reached) problems.push(`${table} is not reached through an index`);
  return { problems, summary: parts.join(' | ') };
}

/** The names of the partial indexes (`CREATE INDEX ... WHERE`) of the database `client` is on. */
export async function partialIndexes(client: Client): Promise<Set<string>> {
  const { rows } = await client.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indpred IS NOT NULL`,
  );
  return new Set(rows.map((row) => row.name));
}

/** The tables that grow; a sequential scan of any of them is a finding. */
export const LARGE_TABLES: ReadonlySet<string> = new Set([
  'recovery.processed_events',
  'licensing.processed_events',
  'notification.processed_events',
  'recovery.outbox',
  'billing.outbox',
  'licensing.outbox',
  'webhook.webhook_events',
  'notification.audit_log',
  'notification.notifications',
  'recovery.guilds',
  'recovery.snapshots',
  'recovery.scheduled_snapshot_runs',
  'recovery.restore_jobs',
  'billing.subscriptions',
  'billing.payment_attempts',
  'billing.billing_keys',
  'billing.provider_events',
]);
