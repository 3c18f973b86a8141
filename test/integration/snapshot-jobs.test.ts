import { ChatPlatformClient } from '@lib/chat-platform';
import { createServiceDataSource } from '@lib/database';
import { EntitlementsClient } from '@lib/entitlements';
import type { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { recoveryDatabase } from '../../apps/recovery/src/database';
import { GuildAccessService } from '../../apps/recovery/src/guilds/guild-access.service';
import { GuildRegistry } from '../../apps/recovery/src/guilds/guild-registry.service';
import { ScheduledSnapshotsJob } from '../../apps/recovery/src/snapshots/scheduled-snapshots.job';
import {
  SCHEDULED_DELETE_BATCH,
  SnapshotRetentionJob,
} from '../../apps/recovery/src/snapshots/snapshot-retention.job';
import { SnapshotService } from '../../apps/recovery/src/snapshots/snapshot.service';
import { PostgresImageStore } from '../../apps/recovery/src/snapshots/images/postgres-image-store.repository';
import { BillingEventStream, SubscriptionScenario } from '../support/billing-events';
import { RecoveryStack } from '../support/recovery-stack';
import { waitFor } from '../support/wait';
import { testTokenCodec } from '../support/internal-tokens';
import { OutboxWriter } from '@lib/outbox';
import { GuildsRepository } from '../../apps/recovery/src/guilds/guilds.repository';
import { RecoveryEvents } from '../../apps/recovery/src/recovery-events';
import { ScheduledSnapshotRunsRepository } from '../../apps/recovery/src/snapshots/scheduled-snapshot-runs.repository';
import { SnapshotRetentionRepository } from '../../apps/recovery/src/snapshots/snapshot-retention.repository';
import { SnapshotsRepository } from '../../apps/recovery/src/snapshots/snapshots.repository';

const OWNER = '200000000000000001';
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * The snapshot jobs driven directly (two "replicas" in this process, beside the recovery app's own
 * timer), against the real database, licensing and the fake platform.
 */
describe('snapshot jobs', () => {
  const stack = new RecoveryStack();
  let dataSource: DataSource;
  let billing: BillingEventStream;
  let replicas: ScheduledSnapshotsJob[];
  let retention: SnapshotRetentionJob;

  beforeAll(async () => {
    billing = new BillingEventStream();
    await stack.start();
    dataSource = await createServiceDataSource({
      ...recoveryDatabase,
      url: process.env.DATABASE_URL!,
    }).initialize();
    const platform = new ChatPlatformClient({
      apiBaseUrl: `${stack.platform.url}/api`,
      botToken: 'fake-bot-token',
    });
    const entitlements = new EntitlementsClient({
      licensingUrl: stack.licensing.url,
      codec: testTokenCodec('recovery'),
    });
    const guildRows = new GuildsRepository(dataSource);
    const registry = new GuildRegistry(guildRows, platform, new GuildAccessService(guildRows, platform));
    const snapshots = new SnapshotService(
      dataSource,
      platform,
      entitlements,
      new SnapshotsRepository(dataSource),
      new RecoveryEvents(new OutboxWriter('recovery', 'recovery')),
      new PostgresImageStore(dataSource),
    );
    replicas = [1, 2].map(
      () =>
        new ScheduledSnapshotsJob(
          new ScheduledSnapshotRunsRepository(dataSource),
          registry,
          snapshots,
          entitlements,
        ),
    );
    retention = new SnapshotRetentionJob(
      new SnapshotRetentionRepository(dataSource),
      entitlements,
      new PostgresImageStore(dataSource),
    );
  });

  afterAll(async () => {
    await stack.stop();
    await billing?.close();
    await dataSource?.destroy();
  });

  async function guildOn(plan: 'FREE' | 'PRO' | 'ENTERPRISE') {
    const seeded = stack.platform.seedGuild({ name: `${plan} guild`, owner: { id: OWNER } });
    const registered = await stack.call(stack.recovery, 'POST', '/api/v1/guilds', stack.user(OWNER), {
      platform_guild_id: seeded.guildId,
    });
    const guildId = registered.body.id as string;
    if (plan !== 'FREE') {
      await billing.publish(new SubscriptionScenario(guildId).started(plan));
      await waitFor('the licence', async () => {
        const rows = await dataSource.query(`SELECT 1 FROM licensing.licenses WHERE guild_id = $1`, [
          guildId,
        ]);
        return rows.length === 1;
      });
    }
    return { seeded, guildId };
  }

  async function runs(guildIds: string[]) {
    return dataSource.query<
      {
        guild_id: string;
        status: string;
        attempts: number;
        due_at: Date;
        snapshot_id: string | null;
        last_error: string | null;
      }[]
    >(`SELECT * FROM recovery.scheduled_snapshot_runs WHERE guild_id = ANY($1::uuid[])`, [guildIds]);
  }

  async function makeDue(guildIds: string[]) {
    await dataSource.query(
      `UPDATE recovery.scheduled_snapshot_runs SET next_attempt_at = now() - interval '1 second'
        WHERE guild_id = ANY($1::uuid[]) AND status = 'pending'`,
      [guildIds],
    );
  }

  it('plans one run per active guild around the next midnight, whoever plans and however often', async () => {
    const { guildId } = await guildOn('FREE');
    const now = new Date();
    await Promise.all(replicas.map((replica) => replica.plan(now)));
    await replicas[0].plan(now);
    const planned = await runs([guildId]);
    expect(planned).toHaveLength(1);
    const midnight = new Date(now);
    midnight.setUTCHours(24, 0, 0, 0);
    expect(Math.abs(planned[0].due_at.getTime() - midnight.getTime())).toBeLessThanOrEqual(15 * 60_000);
  });

  it('snapshots each entitled guild exactly once when replicas race, and skips the others', async () => {
    const pro = await guildOn('PRO');
    const free = await guildOn('FREE');
    const ids = [pro.guildId, free.guildId];
    await replicas[0].plan(new Date());
    await makeDue(ids);
    await Promise.all(replicas.map((replica) => replica.runDue()));
    await waitFor('both runs to finish', async () =>
      (await runs(ids)).every((run) => run.status !== 'pending'),
    );

    const byGuild = new Map((await runs(ids)).map((run) => [run.guild_id, run]));
    expect(byGuild.get(pro.guildId)).toMatchObject({ status: 'done', attempts: 1 });
    expect(byGuild.get(free.guildId)).toMatchObject({ status: 'skipped', snapshot_id: null });
    const snapshots = await dataSource.query<{ id: string; guild_id: string; created_by_user: null }[]>(
      `SELECT id, guild_id, created_by_user FROM recovery.snapshots WHERE guild_id = ANY($1::uuid[]) AND trigger = 'scheduled'`,
      [ids],
    );
    expect(snapshots).toEqual([
      { id: byGuild.get(pro.guildId)!.snapshot_id, guild_id: pro.guildId, created_by_user: null },
    ]);
  });

  it('retries a failed run later instead of giving up or looping', async () => {
    const { seeded, guildId } = await guildOn('PRO');
    await replicas[0].plan(new Date());
    await makeDue([guildId]);
    stack.platform.injectFailure({ path: `/guilds/${seeded.guildId}`, status: 503, times: 100 });
    await replicas[0].runDue();
    const [run] = await runs([guildId]);
    expect(run).toMatchObject({ status: 'pending', attempts: 1 });
    expect(run.last_error).toContain('ErrPlatformUnavailable');
    const [{ later }] = await dataSource.query<{ later: boolean }[]>(
      `SELECT next_attempt_at > now() AS later FROM recovery.scheduled_snapshot_runs WHERE guild_id = $1`,
      [guildId],
    );
    expect(later).toBe(true);
  });

  describe('retention', () => {
    async function insertSnapshot(guildId: string, trigger: string, ageMs: number): Promise<string> {
      const id = uuidv7();
      await dataSource.query(
        `INSERT INTO recovery.snapshots (id, guild_id, payload, payload_size, trigger, created_at)
         VALUES ($1, $2, '{"version":1}', 13, $3, now() - make_interval(secs => $4))`,
        [id, guildId, trigger, ageMs / 1000],
      );
      return id;
    }

    async function remaining(ids: string[]): Promise<string[]> {
      const rows = await dataSource.query<{ id: string }[]>(
        `SELECT id FROM recovery.snapshots WHERE id = ANY($1::uuid[])`,
        [ids],
      );
      return rows.map((row) => row.id);
    }

    it('deletes each trigger past its retention for the plan, keeps manual ones and those a restore uses', async () => {
      const pro = await guildOn('PRO');
      const enterprise = await guildOn('ENTERPRISE');
      const kept = [
        await insertSnapshot(pro.guildId, 'antinuke', 6 * DAY_MS),
        await insertSnapshot(pro.guildId, 'pre_restore', 23 * HOUR_MS),
        await insertSnapshot(pro.guildId, 'scheduled', 6 * DAY_MS),
        await insertSnapshot(pro.guildId, 'manual', 400 * DAY_MS),
        await insertSnapshot(enterprise.guildId, 'scheduled', 8 * DAY_MS),
        await insertSnapshot(enterprise.guildId, 'scheduled', 29 * DAY_MS),
      ];
      const inUse = await insertSnapshot(pro.guildId, 'pre_restore', 3 * DAY_MS);
      await dataSource.query(
        `INSERT INTO recovery.restore_jobs (id, guild_id, snapshot_id, requested_by_user, scope, status, preview_diff)
         VALUES ($1, $2, $3, $4, '{roles}', 'running', '{}')`,
        [uuidv7(), pro.guildId, inUse, uuidv7()],
      );
      const expired = [
        await insertSnapshot(pro.guildId, 'antinuke', 8 * DAY_MS),
        await insertSnapshot(pro.guildId, 'pre_restore', 25 * HOUR_MS),
        await insertSnapshot(pro.guildId, 'scheduled', 8 * DAY_MS),
        await insertSnapshot(enterprise.guildId, 'scheduled', 31 * DAY_MS),
      ];

      const report = await retention.runOnce(new Date());
      expect(report).not.toBeNull();
      expect((await remaining([...kept, inUse, ...expired])).sort()).toEqual([...kept, inUse].sort());
    });

    it('purges deleted snapshots once the grace for undoing the delete is over, whatever their trigger', async () => {
      const { guildId } = await guildOn('PRO');
      const deletedAgo = async (trigger: string, ms: number) => {
        const id = await insertSnapshot(guildId, trigger, HOUR_MS);
        await dataSource.query(
          `UPDATE recovery.snapshots SET deleted_at = now() - $2 * interval '1 millisecond',
                  deleted_by_platform_user_id = $3 WHERE id = $1`,
          [id, ms, OWNER],
        );
        return id;
      };
      const undoable = [await deletedAgo('manual', 6 * DAY_MS), await deletedAgo('scheduled', DAY_MS)];
      const over = [
        await deletedAgo('manual', 8 * DAY_MS),
        await deletedAgo('antinuke', 7 * DAY_MS + HOUR_MS),
      ];

      const report = await retention.runOnce(new Date());
      expect(report?.deleted).toBeGreaterThanOrEqual(over.length);
      expect((await remaining([...undoable, ...over])).sort()).toEqual([...undoable].sort());
    });

    it('after a downgrade, removes the surplus of old scheduled snapshots a batch per night', async () => {
      const { guildId } = await guildOn('PRO');
      const old = [];
      for (let i = 0; i < SCHEDULED_DELETE_BATCH + 2; i++)
        old.push(await insertSnapshot(guildId, 'scheduled', (10 + i) * DAY_MS));
      await retention.runOnce(new Date());
      const afterFirstNight = await remaining(old);
      expect(afterFirstNight).toHaveLength(2);
      // The oldest go first.
      expect(afterFirstNight.sort()).toEqual(old.slice(0, 2).sort());
      await retention.runOnce(new Date());
      expect(await remaining(old)).toEqual([]);
    });
  });
});
