import type { SchedulerRegistry } from '@nestjs/schedule';
import type { ExpiredRows, WebhookEventsRepository } from './webhook-events.repository';
import { RETENTION_BATCH, WebhookEventsRetentionJob } from './webhook-events-retention.job';

const DAY_MS = 86_400_000;

/** A repository whose expired rows are counts per kind; records each batch it was asked for. */
class ExpiredRowsStub {
  batches: { kind: ExpiredRows; cutoff: Date }[] = [];
  lockHeldElsewhere = false;
  /** Called before each batch answers: lets a test act in the middle of a pass. */
  onBatch: () => void = () => undefined;

  constructor(private readonly left: Record<ExpiredRows, number>) {}

  deleteExpired(kind: ExpiredRows, cutoff: Date, limit: number): Promise<number> {
    this.batches.push({ kind, cutoff });
    this.onBatch();
    const deleted = Math.min(limit, this.left[kind]);
    this.left[kind] -= deleted;
    return Promise.resolve(deleted);
  }

  exclusively<T>(_name: string, work: () => Promise<T>): Promise<T | null> {
    return this.lockHeldElsewhere ? Promise.resolve(null) : work();
  }
}

function jobOver(stub: ExpiredRowsStub, days = 90): WebhookEventsRetentionJob {
  return new WebhookEventsRetentionJob(stub as unknown as WebhookEventsRepository, {} as SchedulerRegistry, {
    days,
    cron: '15 4 * * *',
  });
}

describe(WebhookEventsRetentionJob.name, () => {
  const now = new Date('2026-11-24T04:15:00Z');

  it('deletes duplicates first, then superseded failed deliveries, then the rest, in batches until a batch comes back short', async () => {
    const stub = new ExpiredRowsStub({
      duplicates: 2 * RETENTION_BATCH + 5,
      others: RETENTION_BATCH,
      superseded: 3,
    });
    const sut = jobOver(stub, 30);

    expect(await sut.runOnce(now)).toBe(3 * RETENTION_BATCH + 8);
    expect(stub.batches.map((batch) => batch.kind)).toEqual([
      'duplicates',
      'duplicates',
      'duplicates',
      'superseded',
      'others',
      'others',
    ]);
    expect(stub.batches.every((batch) => batch.cutoff.getTime() === now.getTime() - 30 * DAY_MS)).toBe(true);
  });

  it('does nothing while another replica holds the lock', async () => {
    const stub = new ExpiredRowsStub({ duplicates: 10, others: 10, superseded: 10 });
    stub.lockHeldElsewhere = true;
    expect(await jobOver(stub).runOnce(now)).toBeNull();
    expect(stub.batches).toEqual([]);
  });

  it('stops after the batch in flight once shutdown begins', async () => {
    const stub = new ExpiredRowsStub({
      duplicates: 50 * RETENTION_BATCH,
      others: 50 * RETENTION_BATCH,
      superseded: 0,
    });
    const sut = jobOver(stub);
    let shutdown: Promise<void> | undefined;
    stub.onBatch = () => {
      if (stub.batches.length === 3) shutdown = sut.beforeApplicationShutdown();
    };

    expect(await sut.runOnce(now)).toBe(3 * RETENTION_BATCH);
    await shutdown;
    expect(stub.batches).toHaveLength(3);
  });
});
