import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import {
  databaseUrl,
  dropDatabase,
  freshDatabase,
  openGrowthDataSource,
  withClient,
} from '../../bench/growth/database';
import { fillGrowth } from '../../bench/growth/fill';
import { type HotPath, hotPaths, seedWorkingSet } from '../../bench/growth/hot-paths';
import {
  type CapturedPlan,
  capturePlans,
  explain,
  judgePlans,
  LARGE_TABLES,
  partialIndexes,
} from '../../bench/growth/plans';

/**
 * The hot paths' query plans with years of rows in the tables (docs/testing.md, "Growth"). A
 * database of its own (`<DATABASE_URL's name>_plans`), migrated as `npm run migrate` does, filled by
 * the growth bench's fill at PLAN_SCALE (100,000 webhook requests, 200,000 processed events per
 * service, 40,000 audit entries, 2,000 guilds with 30 snapshots each...) and analysed: large enough
 * that the planner reads a table whose index is missing with a Seq Scan or sorts it whole, small
 * enough to fill in seconds. Each path runs through the real repository; every statement it sends
 * is explained first (capturePlans) and must be bounded: no Seq Scan of a growing table, no Sort of
 * more than MAX_SORT_ROWS estimated rows, the path's table reached through an index.
 *
 * `npm run bench:growth` applies the same judgement at full scale and prints each plan.
 */
const PLAN_SCALE = 0.02;
const MAX_SORT_ROWS = 5_000;

/** Indexes whose loss the judgement must notice, with the path that depends on each. */
const GUARDED: { index: string; path: string }[] = [
  { index: 'webhook.webhook_events_created_idx', path: 'operator: webhook events, newest' },
  { index: 'webhook.webhook_events_result_created_idx', path: 'operator: webhook events, pending' },
  { index: 'notification.audit_log_guild_idx', path: 'audit log, page a year back' },
  { index: 'recovery.snapshots_guild_idx', path: 'snapshots of a guild (page)' },
  { index: 'notification.notifications_due_idx', path: 'DM sender: claim due DMs (20)' },
  { index: 'billing.subscriptions_due_idx', path: 'renewal job: claim a due subscription' },
  { index: 'recovery.scheduled_snapshot_runs_due_idx', path: 'scheduled snapshots: claim a due run' },
  { index: 'recovery.outbox_unsent_idx', path: 'claim outbox rows (relay, 500)' },
  {
    index: 'webhook.webhook_events_failed_updated_idx',
    path: 'webhook retention: a batch of superseded (100)',
  },
  { index: 'recovery.processed_events_done_at_idx', path: 'processed events retention: a batch (100)' },
  { index: 'recovery.outbox_sent_at_idx', path: 'outbox retention: a batch of sent rows (100)' },
  { index: 'notification.notifications_final_idx', path: 'DM retention: a batch of final DMs (100)' },
  { index: 'recovery.scheduled_snapshot_runs_finished_idx', path: 'scheduled runs retention: a batch (100)' },
  { index: 'billing.provider_events_applied_at_idx', path: 'provider events retention: a batch (100)' },
];

const url = databaseUrl(
  process.env.DATABASE_URL!,
  `${new URL(process.env.DATABASE_URL!).pathname.slice(1)}_plans`,
);
let dataSource: DataSource;
let paths: HotPath[];
let close: () => Promise<void>;
let partial: Set<string>;
const captured = new Map<string, CapturedPlan[]>();

beforeAll(async () => {
  await freshDatabase(url);
  await withClient(url, async (client) => {
    await seedWorkingSet(client, 5);
    await fillGrowth(client, PLAN_SCALE);
    partial = await partialIndexes(client);
  });
  dataSource = await openGrowthDataSource(url);
  ({ paths, close } = await hotPaths(dataSource));
}, 120_000);

afterAll(async () => {
  await close?.();
  await dataSource?.destroy();
  await dropDatabase(url);
});

describe('hot paths at scale', () => {
  const names = [
    'consume an event (recovery)',
    'consume an event (licensing)',
    'consume an event (notification)',
    'claim outbox rows (relay, 500)',
    'take a webhook (new event)',
    'take a webhook (resend: claim + findLive)',
    'audit log, first page',
    'audit log, page a year back',
    'operator: webhook events, newest',
    'operator: webhook events, failed',
    'operator: webhook events, pending',
    'operator: provider + failed, a year back',
    'operator: webhook events, a year back',
    "operator: one event's attempts",
    'snapshots of a guild (page)',
    'renewal job: claim a due subscription',
    'DM sender: claim due DMs (20)',
    'scheduled snapshots: claim a due run',
    'webhook retention: a batch of duplicates (100)',
    'webhook retention: a batch of superseded (100)',
    'webhook retention: a batch of others (100)',
    "snapshot retention: a guild's expired (100)",
    'processed events retention: a batch (100)',
    'outbox retention: a batch of sent rows (100)',
    'DM retention: a batch of final DMs (100)',
    'scheduled runs retention: a batch (100)',
    'provider events retention: a batch (100)',
    'audit log retention: a page of guilds (500)',
    "audit log retention: a guild's expired (100)",
  ];

  it('covers every hot path the bench measures', () => {
    expect(paths.map((path) => path.name).sort()).toEqual([...names].sort());
  });

  it.each(names)('%s runs on a bounded plan', async (name) => {
    const path = paths.find((candidate) => candidate.name === name)!;
    const plans = await capturePlans(() => path.run());
    await path.settle?.();
    captured.set(name, plans);
    const verdict = judgePlans(plans, path.table, LARGE_TABLES, MAX_SORT_ROWS, partial);
    expect({ name, problems: verdict.problems, plans: verdict.summary }).toEqual({
      name,
      problems: [],
      plans: verdict.summary,
    });
  });

  // The judgement itself: each path's statements explained again in a transaction that dropped the
  // index the path relies on (rolled back), and found unbounded.
  it.each(GUARDED)('notices when $index is missing', async ({ index, path: name }) => {
    const path = paths.find((candidate) => candidate.name === name)!;
    const plans = captured.get(name) ?? (await capturePlans(() => path.run()));
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      await client.query('BEGIN');
      await client.query(`DROP INDEX ${index}`);
      const without = await Promise.all(
        plans.map(async (plan) => ({ ...plan, plan: await explain(client, plan.sql, plan.params) })),
      );
      const verdict = judgePlans(without, path.table, LARGE_TABLES, MAX_SORT_ROWS, partial);
      expect(verdict.problems).not.toEqual([]);
    } finally {
      await client.query('ROLLBACK');
      await client.end();
    }
  });
});
