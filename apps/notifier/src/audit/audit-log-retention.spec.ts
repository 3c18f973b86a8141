import type { Entitlements, PlanCode, PlanDefinition } from '@lib/contracts';
import { daysBefore, type DeleteBatch } from '@lib/runtime';
import {
  AuditLogRetention,
  guildsPastFloor,
  type PlanSource,
  shortestRetentionDays,
} from './audit-log-retention';
import type { GuildOldestEntry } from './audit-log-retention.repository';

const NOW = new Date('2026-11-28T04:00:00.000Z');
const DAYS: Record<PlanCode, number> = { FREE: 30, PRO: 90, ENTERPRISE: 365 };

function plan(code: PlanCode, days = DAYS[code]): PlanDefinition {
  return {
    code,
    rank: 0,
    name: code,
    price_krw: 0,
    features: [],
    restore_scopes: [],
    limits: {
      snapshot_manual_max: 0,
      scheduled_snapshot_retention_days: null,
      audit_log_retention_days: days,
      snapshot_image_bytes: 0,
    },
  };
}

function daysAgo(days: number, extraMs = 0): Date {
  return new Date(NOW.getTime() - days * 86_400_000 - extraMs);
}

/** An audit log in memory: guild → entry times; the repository's two statements over it. */
function fakeLog(entries: Record<string, Date[]>) {
  const deletes: { guildId: string; cutoff: Date; limit: number }[] = [];
  const repository = {
    guildsAfter: (after: string, limit: number): Promise<GuildOldestEntry[]> =>
      Promise.resolve(
        Object.keys(entries)
          .filter((guildId) => guildId > after && entries[guildId].length > 0)
          .sort()
          .slice(0, limit)
          .map((guildId) => ({
            guild_id: guildId,
            oldest: new Date(Math.min(...entries[guildId].map((at) => at.getTime()))),
          })),
      ),
    deleteOlderThan: (guildId: string, cutoff: Date, limit: number): Promise<number> => {
      deletes.push({ guildId, cutoff, limit });
      const old = entries[guildId].filter((at) => at < cutoff).slice(0, limit);
      entries[guildId] = entries[guildId].filter((at) => !old.includes(at));
      return Promise.resolve(old.length);
    },
  };
  return { repository, deletes, entries };
}

function licensing(
  plans: Record<string, PlanCode | 'unreadable'>,
  catalogue = [plan('FREE'), plan('PRO'), plan('ENTERPRISE')],
) {
  const asked: string[] = [];
  const source: PlanSource = {
    plans: () => Promise.resolve(catalogue),
    get: (guildId) => {
      asked.push(guildId);
      const code = plans[guildId] ?? 'FREE';
      if (code === 'unreadable') return Promise.reject(new Error('licensing did not answer'));
      return Promise.resolve({ guild_id: guildId, limits: plan(code).limits } as Entitlements);
    },
  };
  return { source, asked };
}

/** The sweep's drain: repeats a batch until it comes back short. */
function drainOf(batch: number) {
  return async (deleteBatch: DeleteBatch) => {
    let total = 0;
    for (;;) {
      const deleted = await deleteBatch(batch);
      total += deleted;
      if (deleted < batch) return total;
    }
  };
}

describe('audit log retention', () => {
  it('counts the cutoff back from the sweep, in whole days', () => {
    expect(daysBefore(NOW, 30).toISOString()).toBe('2026-10-29T04:00:00.000Z');
  });

  it("takes the catalogue's shortest retention as the floor and refuses a catalogue without one", () => {
    expect(shortestRetentionDays([plan('PRO'), plan('FREE'), plan('ENTERPRISE')])).toBe(30);
    expect(shortestRetentionDays([plan('FREE', 30), plan('PRO', 14)])).toBe(14);
    expect(() => shortestRetentionDays([])).toThrow();
    expect(() => shortestRetentionDays([plan('FREE', 0)])).toThrow();
  });

  it('looks up only the guilds with an entry older than the floor', () => {
    const floor = daysAgo(30);
    expect(
      guildsPastFloor(
        [
          { guild_id: 'a', oldest: daysAgo(30, 1) },
          { guild_id: 'b', oldest: daysAgo(30) },
          { guild_id: 'c', oldest: daysAgo(2) },
        ],
        floor,
      ),
    ).toEqual(['a']);
  });

  it("deletes each guild's entries older than its plan allows, in batches, and nothing else", async () => {
    const log = fakeLog({
      free: [daysAgo(30, 1), daysAgo(29), daysAgo(45), daysAgo(31)],
      pro: [daysAgo(89), daysAgo(90, 1), daysAgo(40)],
      ent: [daysAgo(364), daysAgo(366)],
      young: [daysAgo(1)],
      lost: [daysAgo(400)],
    });
    const { source, asked } = licensing({ free: 'FREE', pro: 'PRO', ent: 'ENTERPRISE', lost: 'unreadable' });
    const rule = new AuditLogRetention(log.repository, source, { guildPage: 2, lookupsAtOnce: 2 });

    expect(await rule.apply(NOW, drainOf(2), () => false)).toBe(5);

    expect(log.entries).toEqual({
      free: [daysAgo(29)],
      pro: [daysAgo(89), daysAgo(40)],
      ent: [daysAgo(364)],
      young: [daysAgo(1)],
      lost: [daysAgo(400)],
    });
    expect(asked.sort()).toEqual(['ent', 'free', 'lost', 'pro']);
    expect(log.deletes.every(({ limit }) => limit === 2)).toBe(true);
    expect(log.deletes.find(({ guildId }) => guildId === 'pro')?.cutoff).toEqual(daysAgo(90));
  });

  it('asks no guild and deletes nothing when the catalogue cannot be read', async () => {
    const log = fakeLog({ free: [daysAgo(100)] });
    const { source, asked } = licensing({});
    source.plans = () => Promise.reject(new Error('licensing did not answer'));
    const rule = new AuditLogRetention(log.repository, source);
    await expect(rule.apply(NOW, drainOf(10), () => false)).rejects.toThrow('licensing did not answer');
    expect(asked).toEqual([]);
    expect(log.deletes).toEqual([]);
  });

  it('looks up no guild and deletes nothing once the sweep is stopping', async () => {
    const log = fakeLog({ a: [daysAgo(100)], b: [daysAgo(100)] });
    const { source, asked } = licensing({});
    const rule = new AuditLogRetention(log.repository, source, { lookupsAtOnce: 1 });
    expect(
      await rule.apply(
        NOW,
        () => Promise.resolve(0),
        () => true,
      ),
    ).toBe(0);
    expect(log.entries).toEqual({ a: [daysAgo(100)], b: [daysAgo(100)] });
    expect(asked).toEqual([]);
  });
});
