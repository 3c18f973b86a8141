import { SchedulerRegistry } from '@nestjs/schedule';
import type { PlanCode } from '@lib/contracts';
import { EntitlementErrors, EntitlementsClient } from '@lib/entitlements';
import { RetentionSweep } from '@lib/runtime';
import type { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { AuditLogRetention, type PlanSource } from '../../apps/notifier/src/audit/audit-log-retention';
import { AuditLogRetentionRepository } from '../../apps/notifier/src/audit/audit-log-retention.repository';
import { type AppProcess, startApp } from '../support/app-process';
import { openDataSource } from '../support/database';
import { testTokenCodec } from '../support/internal-tokens';

const DAY_MS = 86_400_000;
/** docs/behaviour.md §8, apps/licensing/src/migrations/1766400000001-plan-audit-retention.ts */
const RETENTION_DAYS: Record<PlanCode, number> = { FREE: 30, PRO: 90, ENTERPRISE: 365 };

type Kind = PlanCode | 'EXPIRED_PRO' | 'UNREADABLE' | 'NO_LICENCE';

/**
 * The audit log's retention run by the sweep the notifier uses (RetentionSweep: advisory lock,
 * batches) against the real licensing app and the shared test database: each guild loses exactly
 * its entries older than its plan in force allows, as of the sweep's `now`.
 */
describe('audit log retention', () => {
  let licensing: AppProcess;
  let dataSource: DataSource;
  let replica: DataSource;
  const now = new Date();
  const guilds = new Map<Kind, string>();
  /** Every entry the test wrote: id, guild and whether the sweep must delete it. */
  const entries: { eventId: string; guildId: string; expired: boolean }[] = [];

  beforeAll(async () => {
    dataSource = await openDataSource();
    replica = await openDataSource();
    licensing = await startApp('licensing');
    for (const kind of ['FREE', 'PRO', 'ENTERPRISE', 'EXPIRED_PRO', 'UNREADABLE', 'NO_LICENCE'] as Kind[]) {
      guilds.set(kind, uuidv7());
    }
    const licence = async (kind: Kind, code: PlanCode, expiresAt: Date | null): Promise<void> => {
      await dataSource.query(
        `INSERT INTO licensing.licenses (id, guild_id, plan_id, status, expires_at)
         SELECT $1, $2, id, 'active', $4 FROM licensing.plans WHERE code = $3`,
        [uuidv7(), guilds.get(kind), code, expiresAt],
      );
    };
    await licence('FREE', 'FREE', null);
    await licence('PRO', 'PRO', new Date(now.getTime() + 30 * DAY_MS));
    await licence('ENTERPRISE', 'ENTERPRISE', new Date(now.getTime() + 30 * DAY_MS));
    // A paid licence past its end is FREE: 30 days, not 90.
    await licence('EXPIRED_PRO', 'PRO', new Date(now.getTime() - DAY_MS));
    await licence('UNREADABLE', 'ENTERPRISE', new Date(now.getTime() + 30 * DAY_MS));
  });

  afterAll(async () => {
    if (dataSource?.isInitialized) {
      const ids = [...guilds.values()];
      await dataSource.query(`DELETE FROM notification.audit_log WHERE guild_id = ANY($1::text[])`, [ids]);
      await dataSource.query(`DELETE FROM licensing.licenses WHERE guild_id = ANY($1::uuid[])`, [ids]);
    }
    await licensing?.stop();
    await replica?.destroy();
    await dataSource?.destroy();
  });

  /** Writes an entry of `kind`'s guild that occurred `ageMs` before `now`. */
  async function entry(kind: Kind, ageMs: number, expired: boolean): Promise<void> {
    const eventId = uuidv7();
    const guildId = guilds.get(kind)!;
    await dataSource.query(
      `INSERT INTO notification.audit_log
         (event_id, event_type, producer, guild_id, aggregate_type, aggregate_id, occurred_at, payload)
       VALUES ($1, 'RestoreStarted', 'recovery', $2, 'restore_job', $4, $3, '{}')`,
      [eventId, guildId, new Date(now.getTime() - ageMs), eventId],
    );
    entries.push({ eventId, guildId, expired });
  }

  /** Entries on both sides of `days`' cutoff: exactly at it (kept) and a millisecond past (gone). */
  async function around(kind: Kind, days: number, expiredOnes: number): Promise<void> {
    await entry(kind, days * DAY_MS, false);
    await entry(kind, days * DAY_MS - 1, false);
    await entry(kind, 1_000, false);
    for (let i = 0; i < expiredOnes; i++) await entry(kind, days * DAY_MS + 1 + i * 3_600_000, true);
  }

  async function remaining(): Promise<Set<string>> {
    const rows = await dataSource.query<{ event_id: string }[]>(
      `SELECT event_id FROM notification.audit_log WHERE event_id = ANY($1::uuid[])`,
      [entries.map(({ eventId }) => eventId)],
    );
    return new Set(rows.map((row) => row.event_id));
  }

  /** What else the sweep must not touch: every other guild's recent entries and the other tables. */
  async function untouched(): Promise<unknown> {
    const [row] = await dataSource.query<Record<string, string>[]>(
      `SELECT (SELECT count(*) FROM notification.audit_log
                WHERE guild_id <> ALL($1::text[]) AND occurred_at >= $2) AS other_recent_entries,
              (SELECT count(*) FROM notification.notifications) AS notifications,
              (SELECT count(*) FROM notification.processed_events) AS processed_events,
              (SELECT count(*) FROM licensing.licenses) AS licences,
              (SELECT count(*) FROM licensing.plans) AS plans`,
      [[...guilds.values()], new Date(now.getTime() - RETENTION_DAYS.FREE * DAY_MS)],
    );
    return row;
  }

  function sweepOn(db: DataSource, plans: PlanSource): RetentionSweep {
    const rule = new AuditLogRetention(new AuditLogRetentionRepository(db), plans, {
      guildPage: 2,
      lookupsAtOnce: 2,
    });
    return new RetentionSweep(db, new SchedulerRegistry(), [rule], {
      name: 'notifier',
      cron: '0 3 * * *',
      batch: 2,
    });
  }

  /** The real entitlements client, except that licensing "does not answer" for one guild. */
  function licensingFor(): PlanSource {
    const client = new EntitlementsClient({ licensingUrl: licensing.url, codec: testTokenCodec('notifier') });
    return {
      plans: () => client.plans(),
      get: (guildId) =>
        guildId === guilds.get('UNREADABLE')
          ? Promise.reject(EntitlementErrors.licensingUnavailable())
          : client.get(guildId),
    };
  }

  it("deletes exactly the entries older than each guild's plan allows, once, on one of two replicas", async () => {
    await around('FREE', RETENTION_DAYS.FREE, 5);
    await around('NO_LICENCE', RETENTION_DAYS.FREE, 1);
    await around('EXPIRED_PRO', RETENTION_DAYS.FREE, 2);
    await around('PRO', RETENTION_DAYS.PRO, 3);
    await around('ENTERPRISE', RETENTION_DAYS.ENTERPRISE, 4);
    // Licensing cannot say: nothing of this guild goes, however old.
    await entry('UNREADABLE', 400 * DAY_MS, false);
    await entry('UNREADABLE', 40 * DAY_MS, false);
    // Between FREE's and PRO's cutoffs: only a FREE guild loses these.
    await entry('PRO', 60 * DAY_MS, false);
    await entry('FREE', 60 * DAY_MS, true);
    const before = await untouched();
    const expired = entries.filter(({ expired }) => expired).length;

    // Two replicas' sweeps at once. Whichever takes the lock waits until the other has answered, so
    // both really overlap; were both let in, each would wait for the other and the test time out.
    const settle: [() => void, () => void] = [() => {}, () => {}];
    const settled = [new Promise<void>((r) => (settle[0] = r)), new Promise<void>((r) => (settle[1] = r))];
    const gated = (mine: number): PlanSource => {
      const real = licensingFor();
      return {
        plans: async () => {
          await settled[1 - mine];
          return real.plans();
        },
        get: (guildId) => real.get(guildId),
      };
    };
    const sweeps = [sweepOn(dataSource, gated(0)), sweepOn(replica, gated(1))];
    const reports = await Promise.all(
      sweeps.map((sweep, i) => sweep.runOnce(now).finally(() => settle[i]())),
    );

    expect(reports.filter((report) => report === null)).toHaveLength(1);
    expect(reports.find((report) => report !== null)).toEqual({
      'notification.audit_log': expect.any(Number),
    });
    const left = await remaining();
    expect(
      entries
        .filter(({ eventId }) => !left.has(eventId))
        .map(({ eventId }) => eventId)
        .sort(),
    ).toEqual(
      entries
        .filter(({ expired }) => expired)
        .map(({ eventId }) => eventId)
        .sort(),
    );
    expect(left.size).toBe(entries.length - expired);
    expect(await untouched()).toEqual(before);

    // A second sweep has nothing more of these guilds to delete.
    const again = await sweepOn(dataSource, licensingFor()).runOnce(now);
    expect(again).not.toBeNull();
    expect(await remaining()).toEqual(left);
  });
});
