import { SchedulerRegistry } from '@nestjs/schedule';
import type { DataSource } from 'typeorm';
import { olderThanDays, RETENTION_BATCH, type RetentionRule, RetentionSweep } from './retention-sweep';

const DAY_MS = 86_400_000;

/** A DataSource whose only use here is the sweep's advisory lock: held elsewhere or free. */
function lockingDataSource(heldElsewhere = false): { dataSource: DataSource; statements: string[] } {
  const statements: string[] = [];
  const client = {
    query: (sql: string) => {
      statements.push(sql);
      return Promise.resolve({ rows: [{ locked: !heldElsewhere }] });
    },
    release: () => undefined,
  };
  const dataSource = {
    driver: { master: { connect: () => Promise.resolve(client) } },
  } as unknown as DataSource;
  return { dataSource, statements };
}

/** A table of `rows` expired rows, deleted `limit` at a time; records each batch's cutoff. */
function expiredRows(table: string, rows: number, days = 30) {
  const cutoffs: Date[] = [];
  const rule = olderThanDays(table, days, (cutoff, limit) => {
    cutoffs.push(cutoff);
    const deleted = Math.min(limit, rows);
    rows -= deleted;
    return Promise.resolve(deleted);
  });
  return { rule, cutoffs, left: () => rows };
}

function sweepOf(rules: RetentionRule[], dataSource = lockingDataSource().dataSource): RetentionSweep {
  return new RetentionSweep(dataSource, new SchedulerRegistry(), rules, {
    name: 'test-retention',
    cron: '0 4 * * *',
  });
}

describe(RetentionSweep.name, () => {
  const now = new Date('2026-11-28T04:30:00Z');

  it('applies every rule in order, in batches until one comes back short, each cut off at its own age', async () => {
    const first = expiredRows('a.first', 2 * RETENTION_BATCH + 5, 14);
    const second = expiredRows('a.second', RETENTION_BATCH, 90);
    const sut = sweepOf([first.rule, second.rule]);

    expect(await sut.runOnce(now)).toEqual({
      'a.first': 2 * RETENTION_BATCH + 5,
      'a.second': RETENTION_BATCH,
    });
    expect(first.cutoffs).toHaveLength(3);
    // Exactly a batch left means one more (empty) batch to learn that nothing is left.
    expect(second.cutoffs).toHaveLength(2);
    expect(first.cutoffs.every((cutoff) => cutoff.getTime() === now.getTime() - 14 * DAY_MS)).toBe(true);
    expect(second.cutoffs.every((cutoff) => cutoff.getTime() === now.getTime() - 90 * DAY_MS)).toBe(true);
  });

  it('runs nothing while another replica holds the lock, and names its lock after the sweep', async () => {
    const rows = expiredRows('a.table', 10);
    const { dataSource, statements } = lockingDataSource(true);

    expect(await sweepOf([rows.rule], dataSource).runOnce(now)).toBeNull();
    expect(rows.cutoffs).toEqual([]);
    expect(statements).toEqual([expect.stringContaining('pg_try_advisory_lock')]);
  });

  it('goes on with the next rule when one fails, and leaves the failed one out of the report', async () => {
    const failing: RetentionRule = {
      table: 'a.broken',
      apply: () => Promise.reject(new Error('relation missing')),
    };
    const rows = expiredRows('a.table', 3);

    expect(await sweepOf([failing, rows.rule]).runOnce(now)).toEqual({ 'a.table': 3 });
  });

  it('stops after the batch in flight once shutdown begins, and runs no further rule', async () => {
    const many = expiredRows('a.many', 50 * RETENTION_BATCH);
    const later = expiredRows('a.later', 10);
    const sut = sweepOf([
      {
        table: 'a.many',
        apply: (at, drain, stopping) =>
          many.rule.apply(
            at,
            (batch) =>
              drain(async (limit) => {
                if (many.cutoffs.length === 2) void sut.beforeApplicationShutdown();
                return batch(limit);
              }),
            stopping,
          ),
      },
      later.rule,
    ]);

    expect(await sut.runOnce(now)).toEqual({ 'a.many': 3 * RETENTION_BATCH });
    expect(later.cutoffs).toEqual([]);
  });

  it('tells a rule whether the sweep is stopping', async () => {
    const seen: boolean[] = [];
    const watcher: RetentionRule = {
      table: 'a.watcher',
      apply: (_at, _drain, stopping) => {
        seen.push(stopping());
        void sut.beforeApplicationShutdown();
        seen.push(stopping());
        return Promise.resolve(0);
      },
    };
    const sut = sweepOf([watcher]);

    await sut.runOnce(now);
    expect(seen).toEqual([false, true]);
  });
});
