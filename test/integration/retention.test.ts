import { SchedulerRegistry } from '@nestjs/schedule';
import { type RetentionRule, RetentionSweep } from '@lib/runtime';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { billingRetention } from '../../apps/billing/src/billing-retention';
import { licensingRetention } from '../../apps/licensing/src/licensing-retention';
import type { PlanSource } from '../../apps/notifier/src/audit/audit-log-retention';
import { notifierRetention } from '../../apps/notifier/src/notifier-retention';
import { recoveryRetention } from '../../apps/recovery/src/recovery-retention';
import { JOURNAL_RETENTION_DAYS } from '../../apps/recovery/src/sync/change-journal.repository';
import { openDataSource } from '../support/database';

/**
 * Every app's retention sweep against the migrated database: each rule deletes the rows past its
 * retention and nothing else (rows of the same table that are recent, or in a state it keeps, and
 * rows of other tables). Rows are told apart by a marker unique to this run, so rows other tests
 * left behind do not matter.
 */
const DAY_MS = 86_400_000;
const now = new Date();
const daysAgo = (days: number) => new Date(now.getTime() - days * DAY_MS);

describe('retention sweeps', () => {
  let dataSource: DataSource;
  const run = randomUUID().slice(0, 8);

  beforeAll(async () => {
    dataSource = await openDataSource();
  });

  afterAll(async () => {
    await dataSource.destroy();
  });

  function sweepOf(name: string, rules: RetentionRule[], options: { batch?: number } = {}): RetentionSweep {
    return new RetentionSweep(dataSource, new SchedulerRegistry(), rules, {
      name,
      cron: '30 4 * * *',
      ...options,
    });
  }

  /** Which of `ids` are still in `table`'s `column`. */
  async function remaining(table: string, column: string, ids: string[]): Promise<string[]> {
    const rows = await dataSource.query<{ id: string }[]>(
      `SELECT ${column}::text AS id FROM ${table} WHERE ${column}::text = ANY($1::text[])`,
      [ids],
    );
    return rows.map((row) => row.id).sort();
  }

  async function processedEvent(
    schema: string,
    label: string,
    processedAt: Date,
    status = 'done',
  ): Promise<string> {
    const id = `${run}-${label}`;
    await dataSource.query(
      `INSERT INTO "${schema}".processed_events (consumer, event_id, event_type, status, processed_at)
       VALUES ('retention-test', $1, 'Test', $2, $3)`,
      [id, status, processedAt],
    );
    return id;
  }

  async function guild(): Promise<string> {
    const id = randomUUID();
    await dataSource.query(
      `INSERT INTO recovery.guilds (id, platform_guild_id, name, owner_platform_user_id, bot_installed_at)
       VALUES ($1, $2, 'retention test', '1', now())`,
      [id, String(Math.floor(Math.random() * 1e15) + 1e16)],
    );
    return id;
  }

  it.each([
    ['recovery', (ds: DataSource) => recoveryRetention(ds, retentionDays)],
    ['notification', (ds: DataSource) => notifierRules(ds)],
    ['licensing', (ds: DataSource) => licensingRetention(ds, retentionDays)],
  ])(
    "deletes %s's applied events past PROCESSED_EVENTS_RETENTION_DAYS, in batches, keeping recent ones and failed ones",
    async (schema, rules) => {
      const expired = await Promise.all(
        Array.from({ length: 17 }, (_, n) => processedEvent(schema, `old-${n}`, daysAgo(15 + n / 10))),
      );
      const kept = [
        await processedEvent(schema, 'recent', daysAgo(13)),
        await processedEvent(schema, 'old-failed', daysAgo(400), 'failed'),
      ];

      const report = await sweepOf(`retention-test-${schema}`, rules(dataSource), { batch: 5 }).runOnce(now);

      expect(report?.[`${schema}.processed_events`]).toBeGreaterThanOrEqual(expired.length);
      expect(await remaining(`"${schema}".processed_events`, 'event_id', [...expired, ...kept])).toEqual(
        kept.sort(),
      );
    },
  );

  it('deletes final DMs past NOTIFICATIONS_RETENTION_DAYS and never a pending one', async () => {
    const notification = async (label: string, status: string, updatedAt: Date) => {
      const id = randomUUID();
      await dataSource.query(
        `INSERT INTO notification.notifications (id, event_id, event_type, template, guild_id,
           recipient_platform_user_id, content, status, updated_at, created_at)
         VALUES ($1, $2, 'Test', $3, '1', '2', 'hello', $4, $5, $5)`,
        [id, randomUUID(), `${run}-${label}`, status, updatedAt],
      );
      return id;
    };
    const expired = [
      await notification('sent', 'sent', daysAgo(31)),
      await notification('failed', 'failed', daysAgo(60)),
      await notification('undeliverable', 'undeliverable', daysAgo(31)),
      await notification('suppressed', 'suppressed', daysAgo(31)),
    ];
    const kept = [
      await notification('old pending', 'pending', daysAgo(90)),
      await notification('recent sent', 'sent', daysAgo(29)),
    ];

    await sweepOf('retention-test-notifier', notifierRules(dataSource)).runOnce(now);

    expect(await remaining('notification.notifications', 'id', [...expired, ...kept])).toEqual(kept.sort());
  });

  it('deletes the change journal past JOURNAL_RETENTION_DAYS, both its tables', async () => {
    const guildId = await guild();
    const change = async (objectId: string, at: Date) => {
      const [row] = await dataSource.query<{ id: string }[]>(
        `INSERT INTO recovery.change_journal (guild_id, object_type, object_id, change, before, at)
         VALUES ($1, 'channel', $2, 'create', NULL, $3) RETURNING id::text`,
        [guildId, objectId, at],
      );
      return row.id;
    };
    const entry = async (entryId: string, at: Date) => {
      await dataSource.query(
        `INSERT INTO recovery.change_journal_audit_entries (guild_id, entry_id, actor_id, action_type, target_id, changes, at)
         VALUES ($1, $2, '1', 12, '2', '[]', $3)`,
        [guildId, entryId, at],
      );
      return entryId;
    };
    const expired = [await change('1', daysAgo(JOURNAL_RETENTION_DAYS + 1)), await change('2', daysAgo(30))];
    const kept = [await change('3', daysAgo(JOURNAL_RETENTION_DAYS - 1))];
    const expiredEntries = [await entry(`${run}-old`, daysAgo(JOURNAL_RETENTION_DAYS + 1))];
    const keptEntries = [await entry(`${run}-new`, daysAgo(1))];

    await sweepOf('retention-test-recovery', recoveryRetention(dataSource, retentionDays)).runOnce(now);

    expect(await remaining('recovery.change_journal', 'id', [...expired, ...kept])).toEqual(kept);
    expect(
      await remaining('recovery.change_journal_audit_entries', 'entry_id', [
        ...expiredEntries,
        ...keptEntries,
      ]),
    ).toEqual(keptEntries);
  });

  it('deletes finished scheduled snapshot runs of days past the retention, never a pending one', async () => {
    const guildId = await guild();
    const runOn = async (days: number, status: string) => {
      const day = daysAgo(days);
      await dataSource.query(
        `INSERT INTO recovery.scheduled_snapshot_runs (guild_id, run_date, due_at, next_attempt_at, status)
         VALUES ($1, $2::date, $3, $3, $4)`,
        [guildId, day.toISOString().slice(0, 10), day, status],
      );
      return day.toISOString().slice(0, 10);
    };
    const expired = [await runOn(31, 'done'), await runOn(32, 'skipped'), await runOn(45, 'failed')];
    const kept = [await runOn(40, 'pending'), await runOn(29, 'done'), await runOn(0, 'done')];

    await sweepOf('retention-test-recovery', recoveryRetention(dataSource, retentionDays)).runOnce(now);

    const left = await dataSource.query<{ run_date: string }[]>(
      `SELECT run_date::text FROM recovery.scheduled_snapshot_runs WHERE guild_id = $1 ORDER BY run_date`,
      [guildId],
    );
    expect(left.map((row) => row.run_date)).toEqual([...kept].sort());
    expect(expired.every((day) => !left.some((row) => row.run_date === day))).toBe(true);
  });

  it('keeps an id replacement while a snapshot taken before it exists, and chains with it; deletes the rest', async () => {
    const snapshot = async (guildId: string, createdAt: Date) =>
      dataSource.query<unknown>(
        `INSERT INTO recovery.snapshots (id, guild_id, payload, payload_size, trigger, created_at)
         VALUES ($1, $2, '{}', 2, 'manual', $3)`,
        [randomUUID(), guildId, createdAt],
      );
    const replacement = async (guildId: string, original: string, replacement: string, createdAt: Date) => {
      const jobId = randomUUID();
      await dataSource.query(
        `INSERT INTO recovery.restore_jobs (id, guild_id, snapshot_id, requested_by_user, scope, status, preview_diff)
         VALUES ($1, $2, $3, $3, '{roles}', 'completed', '{}')`,
        [jobId, guildId, randomUUID()],
      );
      await dataSource.query(
        `INSERT INTO recovery.platform_id_replacements (guild_id, kind, original_id, replacement_id, restore_job_id, created_at)
         VALUES ($1, 'role', $2, $3, $4, $5)`,
        [guildId, original, replacement, jobId, createdAt],
      );
      return `${guildId}:${original}`;
    };
    // A snapshot from before both restores still holds role A: A -> B and B -> C stay.
    const referenced = await guild();
    await snapshot(referenced, daysAgo(10));
    const kept = [
      await replacement(referenced, '100', '200', daysAgo(5)),
      await replacement(referenced, '200', '300', daysAgo(1)),
    ];
    // Every snapshot of this guild was taken after its restore: they hold the new ids already.
    const outgrown = await guild();
    await snapshot(outgrown, daysAgo(1));
    // And this guild has no snapshot left at all.
    const bare = await guild();
    const expired = [
      await replacement(outgrown, '100', '200', daysAgo(5)),
      await replacement(bare, '100', '200', daysAgo(5)),
    ];

    await sweepOf('retention-test-recovery', recoveryRetention(dataSource, retentionDays)).runOnce(now);

    const left = await dataSource.query<{ id: string }[]>(
      `SELECT guild_id || ':' || original_id AS id FROM recovery.platform_id_replacements
        WHERE guild_id = ANY($1::uuid[])`,
      [[referenced, outgrown, bare]],
    );
    expect(left.map((row) => row.id).sort()).toEqual(kept.sort());
    expect(expired.every((id) => !left.some((row) => row.id === id))).toBe(true);
  });

  it('deletes applied provider events past PROVIDER_EVENTS_RETENTION_DAYS, keeping recent ones', async () => {
    const providerEvent = async (label: string, appliedAt: Date) => {
      const id = `${run}-${label}`;
      await dataSource.query(
        `INSERT INTO billing.provider_events (event_id, event_type, outcome, detail, applied_at)
         VALUES ($1, 'PAYMENT_STATUS_CHANGED', 'applied', 'test', $2)`,
        [id, appliedAt],
      );
      return id;
    };
    const expired = [await providerEvent('old', daysAgo(401)), await providerEvent('older', daysAgo(900))];
    const kept = [await providerEvent('recent', daysAgo(399))];

    await sweepOf('retention-test-billing', billingRetention(dataSource, retentionDays)).runOnce(now);

    expect(await remaining('billing.provider_events', 'event_id', [...expired, ...kept])).toEqual(
      kept.sort(),
    );
  });

  it('deletes checkouts a week past their expiry, used or not, keeping the rest', async () => {
    const checkout = async (expiresAt: Date, used: boolean) => {
      const id = randomUUID();
      await dataSource.query(
        `INSERT INTO billing.checkouts
           (id, user_id, guild_id, plan_code, customer_key, created_at, expires_at, used_at)
         VALUES ($1, $2, $3, 'PRO', 'user_retention', $4, $5, $6)`,
        [
          id,
          randomUUID(),
          randomUUID(),
          new Date(expiresAt.getTime() - 30 * 60_000),
          expiresAt,
          used ? expiresAt : null,
        ],
      );
      return id;
    };
    const expired = [await checkout(daysAgo(8), true), await checkout(daysAgo(30), false)];
    const kept = [await checkout(daysAgo(6), true), await checkout(daysAgo(-1 / 48), false)];

    await sweepOf('retention-test-billing', billingRetention(dataSource, retentionDays)).runOnce(now);

    expect(await remaining('billing.checkouts', 'id', [...expired, ...kept])).toEqual(kept.sort());
  });

  it('runs on one replica at a time: a second sweep of the same name answers null while the first holds the lock', async () => {
    const expired = await processedEvent('recovery', 'lock-old', daysAgo(30));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const blocking: RetentionRule = {
      table: 'test.blocking',
      apply: async () => {
        entered();
        await held;
        return 0;
      },
    };
    const other = await openDataSource();
    try {
      const first = sweepOf('retention-test-lock', [
        blocking,
        ...recoveryRetention(dataSource, retentionDays),
      ]);
      const second = new RetentionSweep(
        other,
        new SchedulerRegistry(),
        recoveryRetention(other, retentionDays),
        {
          name: 'retention-test-lock',
          cron: '30 4 * * *',
        },
      );
      const firstRun = first.runOnce(now);
      await inside;

      expect(await second.runOnce(now)).toBeNull();
      expect(await remaining('recovery.processed_events', 'event_id', [expired])).toEqual([expired]);

      release();
      expect((await firstRun)?.['recovery.processed_events']).toBeGreaterThanOrEqual(1);
      expect(await remaining('recovery.processed_events', 'event_id', [expired])).toEqual([]);
      // The lock went with the first sweep: the second runs now.
      expect(await second.runOnce(now)).not.toBeNull();
    } finally {
      release();
      await other.destroy();
    }
  });
});

/** The notifier's rules but the audit log's, which has a test of its own (audit-log-retention.test.ts). */
function notifierRules(dataSource: DataSource): RetentionRule[] {
  const noPlans: PlanSource = {
    plans: () => Promise.reject(new Error('not asked here')),
    get: () => Promise.reject(new Error('not asked here')),
  };
  return notifierRetention(dataSource, retentionDays, noPlans).filter(
    (rule) => rule.table !== 'notification.audit_log',
  );
}

/** The settings' defaults, as the apps start with them. */
const retentionDays = {
  PROCESSED_EVENTS_RETENTION_DAYS: 14,
  NOTIFICATIONS_RETENTION_DAYS: 30,
  SCHEDULED_SNAPSHOT_RUNS_RETENTION_DAYS: 30,
  PROVIDER_EVENTS_RETENTION_DAYS: 400,
};
