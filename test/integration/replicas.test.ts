import {
  CONSUMER_GROUPS,
  type DomainEvent,
  type EventType,
  type InternalIdentity,
  LICENSE_CHANGE_CAUSES,
  TOPICS,
} from '@lib/contracts';
import { createServiceDataSource } from '@lib/database';
import { EntitlementsClient } from '@lib/entitlements';
import { FakeChatPlatform, FakePaymentProvider } from '@lib/sandbox';
import { Client, Connection } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { parseOrderId } from '../../apps/billing/src/payments/order-id';
import { nonceFor } from '../../apps/notifier/src/notifications/dm-sender.service';
import { planDm } from '../../apps/notifier/src/notifications/templates';
import {
  antinukeWorkflowId,
  ENTITLEMENTS_CHANGED_SIGNAL,
} from '../../apps/recovery/src/antinuke/workflows/antinuke-contract';
import { recoveryDatabase } from '../../apps/recovery/src/database';
import { SnapshotRetentionJob } from '../../apps/recovery/src/snapshots/snapshot-retention.job';
import { PostgresImageStore } from '../../apps/recovery/src/snapshots/images/postgres-image-store.repository';
import { freePort } from '../support/app-process';
import { endCurrentPeriods } from '../support/billing-stack';
import { openDataSource } from '../support/database';
import { envelope, type SampleParties, samplePayloads, TestEventPublisher } from '../support/event-samples';
import { cookiePair, DASHBOARD_URL, requestGateway } from '../support/gateway-stack';
import { skipNotifierBacklog } from '../support/notifier-backlog';
import {
  describeGroup,
  formatTable,
  type GroupMember,
  groupCaughtUp,
  GroupWatch,
  InternalCaller,
  jsonBody,
  type MetricSample,
  metricSum,
  partitionOf,
  type ProxiedRequest,
  RecordingProxy,
  type ReplicaCheckRow,
  ReplicaSet,
  scrapeMetrics,
  tally,
  waitForIdleGroups,
} from '../support/replica-set';
import { OWNER, seedProtectedGuild } from '../support/restore-scenario';
import { waitFor } from '../support/wait';
import { paymentDoneForUnknownOrder } from '../support/webhook-events';
import { testTokenCodec } from '../support/internal-tokens';
import { testKafka } from '../support/test-kafka';
import { SnapshotRetentionRepository } from '../../apps/recovery/src/snapshots/snapshot-retention.repository';

const REPLICAS = 2;
/** Guilds registered and subscribed through the apps: renewals, scheduled snapshots, AntiNuke. */
const PAID_GUILDS = 8;
/** Guilds of the synthetic burst: 5 events each, on all three topics. */
const BURST_GUILDS = 40;
const BURST_TYPES = [
  'SubscriptionStarted',
  'PaymentSucceeded',
  'SnapshotCreated',
  'RestoreCompleted',
  'LicenseDowngraded',
] as const satisfies readonly EventType[];
const WEBHOOK_EVENTS = 10;
/** Copies of each webhook sent to each intake replica at once. */
const WEBHOOK_COPIES = 3;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const APPS = ['recovery', 'licensing', 'billing', 'notifier', 'gateway', 'webhook-intake'] as const;
type App = (typeof APPS)[number];
type UserIdentity = Extract<InternalIdentity, { kind: 'user' }>;

interface PaidGuild {
  guildId: string;
  platformGuildId: string;
  subscriptionId: string;
}

/** Applications beyond the first, summed over the items. */
function extraCopies(counts: Iterable<number>): number {
  let extra = 0;
  for (const count of counts) extra += Math.max(0, count - 1);
  return extra;
}

function countsFor(ids: readonly string[], counts: Map<string, number>): number[] {
  return ids.map((id) => counts.get(id) ?? 0);
}

/** The check's row from per-item counts of one effect (0 = lost, 1 = once, more = duplicates). */
function row(
  check: string,
  ids: readonly string[],
  counts: Map<string, number>,
  split: string,
): ReplicaCheckRow {
  const perItem = countsFor(ids, counts);
  return {
    check,
    replicas: REPLICAS,
    expected: ids.length,
    applied: perItem.filter((count) => count > 0).length,
    duplicates: extraCopies(perItem),
    lost: perItem.filter((count) => count === 0).length,
    split,
  };
}

/**
 * Scaling correctness: two processes of every app on one database, one Kafka (same consumer
 * groups), one Temporal task queue and one Redis. Every scheduled job must do each due item once
 * across the replicas, every consumer group must apply each event once while both of its members
 * own partitions, and the stateless apps must answer alike. Each app's calls to the fake platform
 * and provider go through a proxy of its own, so the test can tell which replica did what.
 */
describe('two replicas of every app', () => {
  const platform = new FakeChatPlatform({
    rateLimits: { perRoute: { limit: 200, windowMs: 1_000 }, global: { limit: 2_000, windowMs: 1_000 } },
  });
  const provider = new FakePaymentProvider();
  const caller = new InternalCaller();
  const codec = testTokenCodec('recovery');
  const kafka = testKafka('test-replicas');
  const publisher = new TestEventPublisher();
  const watch = new GroupWatch(kafka, Object.values(CONSUMER_GROUPS), REPLICAS);
  const taskQueue = `recovery-replicas-${uuidv7()}`;
  const lanes = Array.from({ length: REPLICAS }, (_, index) => index);
  /** Per replica: recovery -> platform, notifier -> platform, billing -> provider, intake -> billing. */
  const proxies = {
    recovery: lanes.map((i) => new RecordingProxy(`recovery#${i + 1} -> platform`)),
    notifier: lanes.map((i) => new RecordingProxy(`notifier#${i + 1} -> platform`)),
    billing: lanes.map((i) => new RecordingProxy(`billing#${i + 1} -> provider`)),
    intake: lanes.map((i) => new RecordingProxy(`webhook-intake#${i + 1} -> billing`)),
  };
  const table: ReplicaCheckRow[] = [];
  const sets = new Map<App, ReplicaSet>();
  const set = (app: App) => sets.get(app)!;
  let dataSource: DataSource;
  let connection: Connection | undefined;
  let temporal: Client;
  let baseline: MetricSample[][] = [];
  const groupsAtStart = new Map<string, GroupMember[]>();
  const paid: PaidGuild[] = [];
  let gatewayGuild: { guildId: string; platformGuildId: string };
  const burst: { parties: SampleParties; events: DomainEvent[] }[] = [];
  /** When the paid guilds' scheduled runs were made due, and the recovery proxies' logs then. */
  let due: {
    at: Date;
    marks: number[];
    /** When the held platform reads went on, and whether because both replicas were reading. */
    released?: { at: number; byBoth: boolean };
  };
  const suiteStarted = Date.now();
  let bootSeconds = 0;

  const user = (platformUserId: string): UserIdentity => ({
    kind: 'user',
    user_id: uuidv7(),
    platform_user_id: platformUserId,
    session_id: uuidv7(),
  });

  async function startReplicaSets(): Promise<void> {
    // Everything of the test process listens first; the apps' ports are chosen last, just before
    // the apps bind them, so nothing here takes one of them in between.
    const portList: number[] = [];
    const portsOf = (app: App) => lanes.map((i) => portList[APPS.indexOf(app) * REPLICAS + i]);
    const urlOf = (app: App, lane: number) => `http://127.0.0.1:${portsOf(app)[lane]}`;
    const platformUrl = (await platform.start()).url;
    const providerUrl = (await provider.start()).url;
    const via = {
      recovery: await Promise.all(proxies.recovery.map((proxy) => proxy.start(platformUrl))),
      notifier: await Promise.all(proxies.notifier.map((proxy) => proxy.start(platformUrl))),
      billing: await Promise.all(proxies.billing.map((proxy) => proxy.start(providerUrl))),
      intake: await Promise.all(proxies.intake.map((proxy, i) => proxy.start(() => urlOf('billing', i)))),
    };
    const ports = new Set<number>();
    while (ports.size < APPS.length * REPLICAS) ports.add(await freePort());
    portList.push(...ports);
    // Behind one ingress both gateways have the same public callback; the browser may come back to either.
    const redirectUri = `${urlOf('gateway', 0)}/auth/callback`;
    platform.registerOAuthApp({
      clientId: process.env.DISCORD_CLIENT_ID!,
      clientSecret: process.env.DISCORD_CLIENT_SECRET!,
      redirectUris: [redirectUri],
    });
    // Replica i of each service calls replica i of the others (a lane), so every replica takes part.
    const envs: Record<App, (lane: number) => Record<string, string>> = {
      recovery: (lane) => ({
        DISCORD_API_URL: `${via.recovery[lane]}/api`,
        DISCORD_CDN_URL: platform.cdnUrl,
        DISCORD_BOT_TOKEN: platform.botToken,
        LICENSING_URL: urlOf('licensing', lane),
        RECOVERY_ROLE: 'all',
        TEMPORAL_TASK_QUEUE: taskQueue,
        LIVE_SYNC_ENABLED: 'false',
      }),
      licensing: (lane) => ({ RECOVERY_URL: urlOf('recovery', lane) }),
      billing: (lane) => ({
        PROVIDER_API_URL: via.billing[lane],
        PROVIDER_SECRET_KEY: provider.secretKey,
        PROVIDER_CLIENT_KEY: provider.clientKey,
        PROVIDER_TIMEOUT_MS: '10000',
        RECOVERY_URL: urlOf('recovery', lane),
        LICENSING_URL: urlOf('licensing', lane),
        BILLING_JOBS_INTERVAL_MS: '250',
      }),
      notifier: (lane) => ({
        DISCORD_API_URL: `${via.notifier[lane]}/api`,
        DISCORD_BOT_TOKEN: platform.botToken,
        RECOVERY_URL: urlOf('recovery', lane),
        LICENSING_URL: urlOf('licensing', lane),
        DM_POLL_INTERVAL_MS: '200',
      }),
      gateway: (lane) => ({
        DISCORD_API_URL: `${platformUrl}/api`,
        DISCORD_OAUTH_URL: platformUrl,
        OAUTH_REDIRECT_URI: redirectUri,
        DASHBOARD_URL,
        RECOVERY_URL: urlOf('recovery', lane),
        BILLING_URL: urlOf('billing', lane),
        LICENSING_URL: urlOf('licensing', lane),
        NOTIFIER_URL: urlOf('notifier', lane),
        RATE_LIMIT_IP_PER_MINUTE: '100000',
        RATE_LIMIT_SESSION_PER_MINUTE: '100000',
      }),
      'webhook-intake': (lane) => ({ BILLING_URL: via.intake[lane] }),
    };
    const booting = Date.now();
    const started = await Promise.allSettled(
      APPS.map(async (app) => {
        sets.set(app, await ReplicaSet.start(app, REPLICAS, envs[app], { ports: portsOf(app) }));
      }),
    );
    const failed = started.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
    bootSeconds = Math.round((Date.now() - booting) / 1_000);
  }

  const allReplicas = () => APPS.flatMap((app) => set(app).replicas);

  async function registerGuild(lane: number, name: string) {
    const seeded = seedProtectedGuild(platform, name);
    const registered = await caller.call(set('recovery').at(lane), 'POST', '/api/v1/guilds', user(OWNER), {
      platform_guild_id: seeded.guildId,
    });
    if (registered.status !== 200) throw new Error(`registration failed: ${JSON.stringify(registered)}`);
    return { guildId: registered.body.id as string, platformGuildId: seeded.guildId };
  }

  /** prepare + card widget + confirm on billing replica `lane`, as the dashboard does it. */
  async function subscribe(lane: number, guildId: string): Promise<string> {
    const payer = user(OWNER);
    const app = set('billing').at(lane);
    const prepared = await caller.call(
      app,
      'GET',
      `/api/v1/billing/prepare?guild_id=${guildId}&plan=ENTERPRISE`,
      payer,
    );
    if (prepared.status !== 200) throw new Error(`prepare failed: ${JSON.stringify(prepared)}`);
    const customerKey = prepared.body.customer_key as string;
    const confirmed = await caller.call(app, 'POST', '/api/v1/billing/confirm', payer, {
      checkout_id: prepared.body.checkout_id,
      auth_key: provider.authorizeCard({ customerKey }),
      customer_key: customerKey,
      guild_id: guildId,
      plan_code: 'ENTERPRISE',
    });
    if (confirmed.status !== 200) throw new Error(`confirm failed: ${JSON.stringify(confirmed)}`);
    return confirmed.body.id as string;
  }

  /** Every event this suite caused or published, as its producers wrote them. */
  async function ourEvents(): Promise<DomainEvent[]> {
    const guildIds = [...paid.map((guild) => guild.guildId), ...burst.map((b) => b.parties.guildId)];
    const written: DomainEvent[] = [];
    for (const schema of ['recovery', 'billing', 'licensing']) {
      const rows = await dataSource.query<{ envelope: DomainEvent }[]>(
        `SELECT envelope FROM ${schema}.outbox WHERE envelope->>'guild_id' = ANY($1::text[]) ORDER BY seq`,
        [guildIds],
      );
      written.push(...rows.map((r) => r.envelope));
    }
    return [...written, ...burst.flatMap((b) => b.events)];
  }

  async function unsentOutboxRows(): Promise<number> {
    const guildIds = [...paid.map((guild) => guild.guildId), ...burst.map((b) => b.parties.guildId)];
    let unsent = 0;
    for (const schema of ['recovery', 'billing', 'licensing']) {
      const [{ n }] = await dataSource.query<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM ${schema}.outbox
          WHERE envelope->>'guild_id' = ANY($1::text[]) AND sent_at IS NULL`,
        [guildIds],
      );
      unsent += n;
    }
    return unsent;
  }

  /** Rows of `sql` (which selects `id`) per id. */
  async function countRows(sql: string, params: unknown[]): Promise<Map<string, number>> {
    const rows = await dataSource.query<{ id: string }[]>(sql, params);
    return tally(rows, (r) => String(r.id));
  }

  /** How much each replica of `app` added to a metric since the suite's baseline. */
  async function metricDeltas(
    app: App,
    name: string,
    labels: Record<string, string> = {},
  ): Promise<number[]> {
    const replicas = set(app).replicas;
    const now = await Promise.all(replicas.map((replica) => scrapeMetrics(replica)));
    const offset = APPS.slice(0, APPS.indexOf(app)).reduce((sum, a) => sum + set(a).size, 0);
    return now.map(
      (samples, i) => metricSum(samples, name, labels) - metricSum(baseline[offset + i] ?? [], name, labels),
    );
  }

  const split = (counts: readonly number[]) => counts.join(' / ');

  beforeAll(async () => {
    dataSource = await openDataSource();
    await waitForIdleGroups(kafka, Object.values(CONSUMER_GROUPS), 120_000);
    await watch.start();
    // Old messages other suites left for the notifier group would only slow it down (gateway-stack.ts).
    await skipNotifierBacklog(dataSource);
    await startReplicaSets();
    connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
    temporal = new Client({ connection, namespace: process.env.TEMPORAL_NAMESPACE! });

    // Both members of every group own partitions before anything is published.
    for (const group of Object.values(CONSUMER_GROUPS)) {
      const members = await waitFor(
        `both members of ${group} to own partitions`,
        async () => {
          const described = await describeGroup(kafka, group);
          const owning = described.members.filter((member) => member.partitions.length > 0);
          return described.state === 'Stable' && owning.length >= REPLICAS && described.members;
        },
        { timeoutMs: 90_000, intervalMs: 500 },
      );
      groupsAtStart.set(group, members);
    }
    baseline = await Promise.all(allReplicas().map((replica) => scrapeMetrics(replica)));

    // Guilds on the platform, registered with recovery, subscribed to ENTERPRISE through billing:
    // their events flow billing -> licensing -> recovery and the notifier through the real relays.
    const registered = await Promise.all(
      Array.from({ length: PAID_GUILDS + 1 }, (_, i) => registerGuild(i % REPLICAS, `Replica Guild ${i}`)),
    );
    gatewayGuild = registered[PAID_GUILDS];
    const subscriptions = await Promise.all(
      registered.slice(0, PAID_GUILDS).map((guild, i) => subscribe(i % REPLICAS, guild.guildId)),
    );
    registered
      .slice(0, PAID_GUILDS)
      .forEach((guild, i) => paid.push({ ...guild, subscriptionId: subscriptions[i] }));

    // The burst: 5 events for each of 40 guilds (keys) on all three topics, each to a user of its own.
    for (let i = 0; i < BURST_GUILDS; i++) {
      const platformUserId = String(610_000_000_000_000_000n + BigInt(i));
      platform.addUser(platformUserId);
      const parties: SampleParties = {
        guildId: uuidv7(),
        guildName: `Burst ${i}`,
        userId: uuidv7(),
        platformUserId,
      };
      const samples = samplePayloads(parties);
      burst.push({
        parties,
        events: BURST_TYPES.map((type) => envelope(type, parties.guildId, samples[type]) as DomainEvent),
      });
    }
    await publisher.publish(burst.flatMap((b) => b.events));

    // The paid guilds' scheduled snapshots need their licence in place.
    await waitFor(
      'the paid guilds to be ENTERPRISE',
      async () => {
        const [{ n }] = await dataSource.query<{ n: number }[]>(
          `SELECT count(*)::int AS n FROM licensing.licenses l JOIN licensing.plans p ON p.id = l.plan_id
            WHERE l.guild_id = ANY($1::uuid[]) AND p.code = 'ENTERPRISE'`,
          [paid.map((guild) => guild.guildId)],
        );
        return n === PAID_GUILDS;
      },
      { timeoutMs: 60_000 },
    );

    // Due now: every paid subscription's renewal, and every paid guild's scheduled snapshot of the
    // coming night's run (the job plans one row per guild and night; its next attempt is moved here).
    await endCurrentPeriods(
      dataSource,
      paid.map((guild) => guild.subscriptionId),
    );
    due = { at: new Date(), marks: proxies.recovery.map((proxy) => proxy.mark()) };
    // Each replica's job ticks every 30 s from its own start, so one of them usually finds all runs
    // due. To make them race, the platform reads of the first claimant are held until the other
    // replica has claimed runs too (at most 12 s from the first read, below the platform client's
    // 15 s time-out).
    let resolveRelease!: () => void;
    const released = new Promise<void>((resolve) => (resolveRelease = resolve));
    const release = (byBoth: boolean) => {
      due.released ??= { at: Date.now(), byBoth };
      resolveRelease();
    };
    let deadline: NodeJS.Timeout | undefined;
    void released.then(() => clearTimeout(deadline));
    const reading = lanes.map(() => false);
    const readsPaidGuild = (request: ProxiedRequest) =>
      paid.some((guild) => request.url.includes(`/guilds/${guild.platformGuildId}`));
    proxies.recovery.forEach((proxy, lane) =>
      proxy.holdUntil(readsPaidGuild, released, () => {
        reading[lane] = true;
        deadline ??= setTimeout(() => release(false), 12_000);
        if (reading.every(Boolean)) release(true);
      }),
    );
    await dataSource.query(
      `INSERT INTO recovery.scheduled_snapshot_runs (guild_id, run_date, due_at, next_attempt_at)
       SELECT id, (now() AT TIME ZONE 'UTC')::date + 1, now(), now() - interval '1 second'
         FROM unnest($1::uuid[]) AS g(id)
       ON CONFLICT (guild_id, run_date) DO UPDATE SET next_attempt_at = excluded.next_attempt_at
        WHERE scheduled_snapshot_runs.status = 'pending'`,
      [paid.map((guild) => guild.guildId)],
    );
  }, 300_000);

  afterAll(async () => {
    await watch.stop();
    const crowded = watch.summary();
    if (table.length > 0 || crowded.length > 0) {
      console.log(
        [
          `replicas suite: ${Math.round((Date.now() - suiteStarted) / 1000)} s, of which ${bootSeconds} s starting ` +
            `${APPS.length * REPLICAS} app processes`,
          formatTable(table),
          ...crowded.map((line) => `WARNING other processes joined our consumer groups: ${line}`),
        ].join('\n'),
      );
    }
    // Nothing runs this suite's task queue any more: end its AntiNuke workflows.
    if (connection) {
      await Promise.allSettled(
        paid.map((guild) =>
          temporal.workflow.getHandle(antinukeWorkflowId(guild.guildId)).terminate('replicas suite ended'),
        ),
      );
      await connection.close();
    }
    await Promise.all([...sets.values()].map((replicaSet) => replicaSet.stop()));
    await Promise.all(Object.values(proxies).flatMap((list) => list.map((proxy) => proxy.stop())));
    await publisher.close();
    await provider.stop();
    await platform.stop();
    await dataSource?.destroy();
  });

  it('billing: each due renewal is charged once while both replicas run the job', async () => {
    const ids = paid.map((guild) => guild.subscriptionId);
    // On a time-out the counts below still say what happened, and the assertions fail on them.
    await waitFor(
      'every renewal to settle',
      async () => {
        const [{ n }] = await dataSource.query<{ n: number }[]>(
          `SELECT count(*)::int AS n FROM billing.subscriptions s
            WHERE s.id = ANY($1::uuid[]) AND s.cycle_count = 2
              AND NOT EXISTS (SELECT 1 FROM billing.payment_attempts a
                               WHERE a.subscription_id = s.id AND a.status = 'pending')`,
          [ids],
        );
        return n === ids.length;
      },
      { timeoutMs: 30_000 },
    ).catch((error: Error) => console.log(error.message));
    // Every retry number counts: a second attempt of the same cycle is a second charge of the card.
    const wanted = new Set(ids);
    const bySubscription = (orderId: unknown) => {
      const parts = parseOrderId(String(orderId));
      return parts?.cycle === 2 && wanted.has(parts.subscriptionId) ? parts.subscriptionId : undefined;
    };
    const approved = tally(provider.approvedCharges(), (charge) => bySubscription(charge.orderId));
    const sentBy = proxies.billing.map((proxy) =>
      tally(
        proxy.requests((r) => r.method === 'POST' && /^\/v1\/billing\/[^/]+$/.test(r.url.split('?')[0])),
        (r) => bySubscription(jsonBody(r)?.orderId),
      ),
    );
    const sent = new Map(
      ids.map((id) => [id, sentBy.reduce((sum, counts) => sum + (counts.get(id) ?? 0), 0)]),
    );
    const attempts = await countRows(
      `SELECT subscription_id AS id FROM billing.payment_attempts WHERE subscription_id = ANY($1::uuid[]) AND cycle = 2`,
      [ids],
    );
    const succeeded = await countRows(
      `SELECT envelope->'payload'->>'subscription_id' AS id FROM billing.outbox
        WHERE event_type = 'PaymentSucceeded' AND envelope->'payload'->>'cycle' = '2'
          AND envelope->'payload'->>'subscription_id' = ANY($1::text[])`,
      [ids],
    );
    const perReplica = sentBy.map((counts) => [...counts.values()].reduce((a, b) => a + b, 0));
    // An attempt our replicas never sent was made by some other billing process on this database.
    const elsewhere = ids.filter((id) => (attempts.get(id) ?? 0) > 0 && !sent.get(id)).length;
    table.push(
      row(
        'billing renewals: charges sent',
        ids,
        sent,
        split(perReplica) + (elsewhere ? ` (+${elsewhere} attempted outside this suite)` : ''),
      ),
      row('billing renewals: approved at provider', ids, approved, ''),
      row('billing renewals: payment attempts', ids, attempts, ''),
      row('billing renewals: PaymentSucceeded', ids, succeeded, ''),
    );
    expect(countsFor(ids, sent)).toEqual(ids.map(() => 1));
    expect(countsFor(ids, approved)).toEqual(ids.map(() => 1));
    expect(countsFor(ids, attempts)).toEqual(ids.map(() => 1));
    expect(countsFor(ids, succeeded)).toEqual(ids.map(() => 1));
  });

  it('recovery: each due guild gets one scheduled snapshot while both replicas run the job', async () => {
    const ids = paid.map((guild) => guild.guildId);
    // The job ticks every 30 s on each replica; the first tick after the runs became due takes them.
    await waitFor(
      'every scheduled run to finish',
      async () => {
        const [{ n }] = await dataSource.query<{ n: number }[]>(
          `SELECT count(*)::int AS n FROM recovery.scheduled_snapshot_runs
            WHERE guild_id = ANY($1::uuid[]) AND run_date = (now() AT TIME ZONE 'UTC')::date + 1
              AND status <> 'pending'`,
          [ids],
        );
        return n === ids.length;
      },
      { timeoutMs: 75_000, intervalMs: 250 },
    ).catch((error: Error) => console.log(error.message));
    const runs = await dataSource.query<{ guild_id: string; status: string; attempts: number }[]>(
      `SELECT guild_id, status, attempts FROM recovery.scheduled_snapshot_runs
        WHERE guild_id = ANY($1::uuid[]) AND run_date = (now() AT TIME ZONE 'UTC')::date + 1`,
      [ids],
    );
    const snapshots = await countRows(
      `SELECT guild_id AS id FROM recovery.snapshots
        WHERE guild_id = ANY($1::uuid[]) AND trigger = 'scheduled' AND created_at >= $2`,
      [ids, due.at],
    );
    const announced = await countRows(
      `SELECT envelope->>'guild_id' AS id FROM recovery.outbox
        WHERE event_type = 'SnapshotCreated' AND envelope->'payload'->>'trigger' = 'scheduled'
          AND envelope->>'guild_id' = ANY($1::text[]) AND created_at >= $2`,
      [ids, due.at],
    );
    // Which replica read which guild from the platform after the runs became due.
    const touchedBy = proxies.recovery.map(
      (proxy, i) =>
        new Set(
          paid
            .filter((guild) =>
              proxy.since(due.marks[i]).some((r) => r.url.includes(`/guilds/${guild.platformGuildId}`)),
            )
            .map((guild) => guild.guildId),
        ),
    );
    const firstRead = proxies.recovery.map(
      (proxy, i) =>
        proxy
          .since(due.marks[i])
          .find((r) => paid.some((g) => r.url.includes(`/guilds/${g.platformGuildId}`)))?.at,
    );
    const after = (at: number | undefined) =>
      at === undefined ? 'never' : `+${((at - due.at.getTime()) / 1_000).toFixed(1)} s`;
    console.log(
      `scheduled runs made due at 0 s; first platform read of a due guild per replica: ` +
        `${firstRead.map(after).join(' / ')}; held reads went on at ${after(due.released?.at)} ` +
        `(${due.released?.byBoth ? 'both replicas were reading' : 'hold time-out'})`,
    );
    const replicasPerGuild = new Map(
      ids.map((id) => [id, touchedBy.filter((touched) => touched.has(id)).length]),
    );
    // A run claimed while none of our replicas read its guild was claimed by some other process.
    const elsewhere = runs.filter((run) => run.attempts > 0 && !replicasPerGuild.get(run.guild_id)).length;
    table.push(
      row(
        'recovery scheduled snapshots',
        ids,
        snapshots,
        split(touchedBy.map((touched) => touched.size)) +
          (due.released?.byBoth ? ' (claims overlapped)' : '') +
          (elsewhere ? ` (+${elsewhere} claimed outside this suite)` : ''),
      ),
      row('recovery scheduled: SnapshotCreated', ids, announced, ''),
    );
    expect(runs.map((run) => [run.status, run.attempts])).toEqual(ids.map(() => ['done', 1]));
    expect(countsFor(ids, snapshots)).toEqual(ids.map(() => 1));
    expect(countsFor(ids, announced)).toEqual(ids.map(() => 1));
    expect(countsFor(ids, replicasPerGuild)).toEqual(ids.map(() => 1));
  });

  it('recovery: retention deletes each expired snapshot once, on the one replica holding the lock', async () => {
    const [first, second] = paid;
    async function insertSnapshot(guildId: string, trigger: string, ageMs: number): Promise<string> {
      const id = uuidv7();
      await dataSource.query(
        `INSERT INTO recovery.snapshots (id, guild_id, payload, payload_size, trigger, created_at)
         VALUES ($1, $2, '{"version":1}', 13, $3, now() - make_interval(secs => $4))`,
        [id, guildId, trigger, ageMs / 1000],
      );
      return id;
    }
    const expired: string[] = [];
    const kept: string[] = [];
    for (const guild of [first, second]) {
      expired.push(
        await insertSnapshot(guild.guildId, 'antinuke', 8 * DAY_MS),
        await insertSnapshot(guild.guildId, 'pre_restore', 25 * HOUR_MS),
        await insertSnapshot(guild.guildId, 'scheduled', 31 * DAY_MS),
      );
      kept.push(
        await insertSnapshot(guild.guildId, 'antinuke', 6 * DAY_MS),
        await insertSnapshot(guild.guildId, 'pre_restore', 23 * HOUR_MS),
        await insertSnapshot(guild.guildId, 'scheduled', 29 * DAY_MS),
        await insertSnapshot(guild.guildId, 'manual', 400 * DAY_MS),
      );
    }
    // The job runs at 04:00 UTC by cron (no setting moves it), so the test runs one job per replica
    // here, each with a database pool of its own and its own licensing replica.
    const replicas = await Promise.all(
      lanes.map(async (lane) => {
        const pool = await createServiceDataSource({
          ...recoveryDatabase,
          url: process.env.DATABASE_URL!,
        }).initialize();
        const entitlements = new EntitlementsClient({
          licensingUrl: set('licensing').at(lane).url,
          codec,
        });
        return {
          pool,
          job: new SnapshotRetentionJob(
            new SnapshotRetentionRepository(pool),
            entitlements,
            new PostgresImageStore(pool),
          ),
        };
      }),
    );
    const blocker = dataSource.createQueryRunner();
    try {
      // Hold one expired row so replica 1 stops inside its run, its advisory lock taken; replica 2
      // then starts its run at that moment, as a second pod's cron firing at 04:00 does.
      await blocker.connect();
      await blocker.startTransaction();
      await blocker.query(`SELECT id FROM recovery.snapshots WHERE id = $1 FOR UPDATE`, [expired[0]]);
      const firstRun = replicas[0].job.runOnce(new Date());
      await waitFor('replica 1 to wait inside its run', async () => {
        const waiting = await dataSource.query<unknown[]>(
          `SELECT 1 FROM pg_stat_activity
            WHERE wait_event_type = 'Lock' AND query LIKE 'DELETE FROM recovery.snapshots%'`,
        );
        return waiting.length > 0;
      });
      const secondRun = await replicas[1].job.runOnce(new Date());
      await blocker.rollbackTransaction();
      const firstReport = await firstRun;
      // And both at once again, with nothing of ours left to delete.
      const again = await Promise.all(replicas.map((replica) => replica.job.runOnce(new Date())));

      const remaining = await countRows(`SELECT id FROM recovery.snapshots WHERE id = ANY($1::uuid[])`, [
        [...expired, ...kept],
      ]);
      const deleted = new Map(expired.map((id) => [id, remaining.has(id) ? 0 : 1]));
      table.push(
        row(
          'recovery snapshot retention',
          expired,
          deleted,
          [firstReport, secondRun].map((report) => (report ? 'ran' : 'locked out')).join(' / ') +
            `; again: ${again.map((report) => (report ? 'ran' : 'locked out')).join(' / ')}`,
        ),
      );
      expect(secondRun).toBeNull();
      expect(firstReport).not.toBeNull();
      expect(firstReport!.antinuke).toBeGreaterThanOrEqual(2);
      expect(firstReport!.pre_restore).toBeGreaterThanOrEqual(2);
      expect(firstReport!.scheduled).toBeGreaterThanOrEqual(2);
      expect(expired.filter((id) => remaining.has(id))).toEqual([]);
      expect(kept.filter((id) => !remaining.has(id))).toEqual([]);
    } finally {
      if (blocker.isTransactionActive) await blocker.rollbackTransaction();
      await blocker.release();
      await Promise.all(replicas.map((replica) => replica.pool.destroy()));
    }
  });

  it('consumers: every event is applied once per group, and both members of each group did part', async () => {
    await waitFor('our outbox rows to be published', async () => (await unsentOutboxRows()) === 0, {
      timeoutMs: 30_000,
    });
    const all = await ourEvents();
    const onTopic = (topic: string) => all.filter((event) => TOPICS[event.producer] === topic);
    const idsOf = (list: DomainEvent[]) => list.map((event) => event.id);
    const licenceChanges = idsOf(
      onTopic(TOPICS.billing).filter((e) => (LICENSE_CHANGE_CAUSES as readonly string[]).includes(e.type)),
    );
    const audited = idsOf(all);
    const dmCalling = idsOf(all.filter((event) => planDm(event) !== null));
    const antinuke = idsOf(
      onTopic(TOPICS.licensing).filter((e) => e.type === 'LicenseUpgraded' || e.type === 'LicenseDowngraded'),
    );
    const processed = (schema: string, consumer: string, ids: string[]) =>
      countRows(
        `SELECT event_id AS id FROM ${schema}.processed_events
          WHERE consumer = $1 AND status = 'done' AND event_id = ANY($2::text[])`,
        [consumer, ids],
      );
    await waitFor(
      'every group to apply every event and read to the end',
      async () => {
        const counts = await Promise.all([
          processed('licensing', 'license', licenceChanges),
          processed('notification', 'audit', audited),
          processed('notification', 'notifications', dmCalling),
          processed('recovery', 'antinuke', antinuke),
        ]);
        const complete =
          counts[0].size === licenceChanges.length &&
          counts[1].size === audited.length &&
          counts[2].size === dmCalling.length &&
          counts[3].size === antinuke.length;
        if (!complete) return false;
        for (const [group, topics] of [
          [CONSUMER_GROUPS.licensing, [TOPICS.billing]],
          [CONSUMER_GROUPS.notifier, Object.values(TOPICS)],
          [CONSUMER_GROUPS.recovery, [TOPICS.licensing]],
        ] as const) {
          if (!(await groupCaughtUp(kafka, group, topics))) return false;
        }
        return true;
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );

    const guildIds = [...paid.map((guild) => guild.guildId), ...burst.map((b) => b.parties.guildId)];
    const licensed = await processed('licensing', 'license', licenceChanges);
    const upgrades = await countRows(
      `SELECT envelope->>'guild_id' AS id FROM licensing.outbox
        WHERE event_type = 'LicenseUpgraded' AND envelope->>'guild_id' = ANY($1::text[])`,
      [guildIds],
    );
    const auditRows = await countRows(
      `SELECT event_id AS id FROM notification.audit_log WHERE event_id = ANY($1::uuid[])`,
      [audited],
    );
    const planned = await countRows(
      `SELECT event_id AS id FROM notification.notifications WHERE event_id = ANY($1::uuid[])`,
      [audited],
    );
    const antinukeApplied = await processed('recovery', 'antinuke', antinuke);
    // AntiNuke: each paid guild's LicenseUpgraded started its workflow with one signal, never two.
    const signals = new Map<string, number>();
    for (const guild of paid) {
      const history = await temporal.workflow.getHandle(antinukeWorkflowId(guild.guildId)).fetchHistory();
      signals.set(
        guild.guildId,
        (history.events ?? []).filter(
          (event) =>
            event.workflowExecutionSignaledEventAttributes?.signalName === ENTITLEMENTS_CHANGED_SIGNAL,
        ).length,
      );
    }

    // Who did the work: the processed-events counter of each replica since the start; and, from the
    // group coordinator, the partitions each member owned when our events came and still owns now:
    // with no rebalance in between, each member applied exactly our events on its partitions.
    const [licensingWork, auditWork, notificationsWork, antinukeWork] = await Promise.all([
      metricDeltas('licensing', 'events_processed_total', { consumer: 'license' }),
      metricDeltas('notifier', 'events_processed_total', { consumer: 'audit' }),
      metricDeltas('notifier', 'events_processed_total', { consumer: 'notifications' }),
      metricDeltas('recovery', 'events_processed_total', { consumer: 'antinuke' }),
    ]);
    const ourPartitions = tally(
      all,
      (event) => `${TOPICS[event.producer]}/${partitionOf(TOPICS[event.producer], event.guild_id)}`,
    );
    const assignment = (members: GroupMember[]) =>
      members
        .map(
          (m) =>
            `${m.memberId}:${m.partitions
              .map((p) => `${p.topic}/${p.partition}`)
              .sort()
              .join(',')}`,
        )
        .sort()
        .join(' ');
    const perMember = new Map<string, { stable: boolean; ours: number[]; owned: number[] }>();
    for (const group of Object.values(CONSUMER_GROUPS)) {
      const before = groupsAtStart.get(group)!;
      const after = (await describeGroup(kafka, group)).members;
      perMember.set(group, {
        stable: assignment(before) === assignment(after),
        owned: before.map((member) => member.partitions.length),
        ours: before.map((member) =>
          member.partitions.reduce(
            (sum, p) => sum + (ourPartitions.get(`${p.topic}/${p.partition}`) ?? 0),
            0,
          ),
        ),
      });
    }
    console.log(
      [
        `our events by partition: ${[...ourPartitions.entries()]
          .sort()
          .map(([p, n]) => `${p}=${n}`)
          .join(' ')}`,
        ...[...perMember.entries()].map(
          ([group, { stable, owned, ours }]) =>
            `group ${group}: ${owned.length} members owning ${owned.join(' + ')} partitions, ` +
            `our events on them ${ours.join(' / ')}; assignment ${stable ? 'unchanged to the end' : 'CHANGED (rebalance)'}`,
        ),
      ].join('\n'),
    );

    table.push(
      row('licensing group: licence changes', licenceChanges, licensed, split(licensingWork)),
      row('licensing: LicenseUpgraded per guild', guildIds, upgrades, ''),
      row('notifier group: audit log', audited, auditRows, split(auditWork)),
      row('notifier group: DMs planned', dmCalling, planned, split(notificationsWork)),
      row('recovery group: licence events', antinuke, antinukeApplied, split(antinukeWork)),
      row(
        'recovery: AntiNuke start signals',
        paid.map((guild) => guild.guildId),
        signals,
        '',
      ),
    );

    expect(licensed.size).toBe(licenceChanges.length);
    expect(countsFor(guildIds, upgrades)).toEqual(guildIds.map(() => 1));
    expect(auditRows.size).toBe(audited.length);
    expect(countsFor(dmCalling, planned)).toEqual(dmCalling.map(() => 1));
    // Events that call for no DM planned none.
    expect(audited.filter((id) => !dmCalling.includes(id) && planned.has(id))).toEqual([]);
    expect(antinukeApplied.size).toBe(antinuke.length);
    expect(
      countsFor(
        paid.map((guild) => guild.guildId),
        signals,
      ),
    ).toEqual(paid.map(() => 1));
    // Scaling, not one idle replica: each member of each group applied events.
    for (const work of [licensingWork, auditWork, notificationsWork, antinukeWork]) {
      expect(work.every((count) => count > 0)).toBe(true);
    }
    for (const { stable, ours } of perMember.values()) {
      if (stable) expect(ours.every((count) => count > 0)).toBe(true);
    }
  });

  it('notifier: each planned DM is sent once while both replicas run the sender', async () => {
    const all = await ourEvents();
    const eventIds = all.map((event) => event.id);
    const rows = await waitFor(
      'every DM of ours to be sent',
      async () => {
        const list = await dataSource.query<
          { id: string; status: string; recipient: string; last_error: string | null }[]
        >(
          `SELECT id, status, recipient_platform_user_id AS recipient, last_error
             FROM notification.notifications WHERE event_id = ANY($1::uuid[])`,
          [eventIds],
        );
        return list.length > 0 && list.every((r) => r.status !== 'pending') && list;
      },
      { timeoutMs: 60_000, intervalMs: 250 },
    );
    const byNonce = new Map(rows.map((r) => [nonceFor(r.id), r.id]));
    const ids = rows.map((r) => r.id);
    const delivered = tally(platform.dmLog(), (dm) => byNonce.get(String(dm.nonce)));
    const postedBy = proxies.notifier.map((proxy) =>
      tally(
        proxy.requests((r) => r.method === 'POST' && /\/channels\/\d+\/messages$/.test(r.url)),
        (r) => byNonce.get(String(jsonBody(r)?.nonce)),
      ),
    );
    const posted = new Map(
      ids.map((id) => [id, postedBy.reduce((sum, counts) => sum + (counts.get(id) ?? 0), 0)]),
    );
    const perReplica = postedBy.map((counts) => [...counts.values()].reduce((a, b) => a + b, 0));
    // A DM none of our replicas even opened a channel for was claimed by some other process.
    const openedFor = new Set(
      proxies.notifier.flatMap((proxy) =>
        proxy
          .requests((r) => r.method === 'POST' && r.url.endsWith('/users/@me/channels'))
          .map((r) => String(jsonBody(r)?.recipient_id)),
      ),
    );
    const unsent = rows.filter((r) => r.status !== 'sent');
    const elsewhere = unsent.filter((r) => !posted.get(r.id) && !openedFor.has(r.recipient));
    if (unsent.length > 0) {
      console.log(
        `DMs not sent: ${unsent.length}, of which ${elsewhere.length} never reached our replicas; e.g. ` +
          JSON.stringify(unsent.slice(0, 3)),
      );
    }
    table.push(
      row(
        'notifier DM sender: messages posted',
        ids,
        posted,
        split(perReplica) + (elsewhere.length ? ` (+${elsewhere.length} taken elsewhere)` : ''),
      ),
      row('notifier DM sender: DMs at platform', ids, delivered, ''),
    );
    expect(unsent).toEqual([]);
    expect(countsFor(ids, posted)).toEqual(ids.map(() => 1));
    expect(countsFor(ids, delivered)).toEqual(ids.map(() => 1));
  });

  it('gateway: a session opened on one replica works on both, and ends on both', async () => {
    const [first, second] = set('gateway').replicas;
    // Log in starting on replica 1 and coming back to replica 2 with the code, as behind a load balancer.
    const start = await fetch(`${first.url}/auth/login`, { redirect: 'manual' });
    expect(start.status).toBe(302);
    const stateCookie = cookiePair(start.headers, 'oauth_state');
    platform.loginAs(OWNER);
    const authorized = await fetch(start.headers.get('location')!, { redirect: 'manual' });
    const callback = new URL(authorized.headers.get('location')!);
    const done = await fetch(`${second.url}${callback.pathname}${callback.search}`, {
      redirect: 'manual',
      headers: { cookie: stateCookie, accept: 'application/json' },
    });
    expect(done.status).toBe(200);
    const { token, user: loggedIn } = (await done.json()) as { token: string; user: { id: string } };
    const cookie = cookiePair(done.headers, 'sid');

    const answers = [];
    for (const gateway of [first, second]) {
      for (const credentials of [{ token }, { cookie }]) {
        const me = await requestGateway(gateway.url, 'GET', '/api/v1/me', credentials);
        const licence = await requestGateway(
          gateway.url,
          'GET',
          `/api/v1/guilds/${gatewayGuild.guildId}/license`,
          credentials,
        );
        answers.push({
          me: me.status,
          id: me.body.id,
          licence: licence.status,
          plan: (licence.body.plan as { code?: string } | undefined)?.code,
        });
      }
    }
    const loggedOut = await requestGateway(second.url, 'POST', '/auth/logout', { token });
    const afterLogout = await Promise.all(
      [first, second].map((gateway) => requestGateway(gateway.url, 'GET', '/api/v1/me', { token })),
    );
    const ok = answers.filter((a) => a.me === 200 && a.id === loggedIn.id && a.licence === 200).length;
    table.push({
      check: 'gateway: one session, both replicas',
      replicas: REPLICAS,
      expected: answers.length,
      applied: ok,
      duplicates: 0,
      lost: answers.length - ok,
      split: `logout on #2 -> ${afterLogout.map((a) => a.status).join(' / ')}`,
    });
    expect(answers).toEqual(answers.map(() => ({ me: 200, id: loggedIn.id, licence: 200, plan: 'FREE' })));
    expect(loggedOut.status).toBe(204);
    expect(afterLogout.map((a) => a.status)).toEqual([401, 401]);
  });

  it('webhook intake: a webhook delivered to both replicas at once is routed once', async () => {
    const intake = set('webhook-intake').replicas;
    const bodies = Array.from({ length: WEBHOOK_EVENTS }, () =>
      paymentDoneForUnknownOrder(provider, 'user_replicas'),
    );
    // Every copy at once; which replica hears an event first alternates.
    const answers = await Promise.all(
      bodies.flatMap((body, k) =>
        [...intake.slice(k % REPLICAS), ...intake.slice(0, k % REPLICAS)].flatMap((replica) =>
          Array.from({ length: WEBHOOK_COPIES }, () =>
            provider.sendWebhook(`${replica.url}/webhooks/provider`, body),
          ),
        ),
      ),
    );
    const ids = bodies.map((body) => body.eventId);
    const routedBy = proxies.intake.map((proxy) =>
      tally(
        proxy.requests((r) => r.method === 'POST'),
        (r) => String(jsonBody(r)?.event_id),
      ),
    );
    const routed = new Map(
      ids.map((id) => [id, routedBy.reduce((sum, counts) => sum + (counts.get(id) ?? 0), 0)]),
    );
    const recorded = await dataSource.query<{ external_event_id: string; processing_result: string }[]>(
      `SELECT external_event_id, processing_result FROM webhook.webhook_events WHERE external_event_id = ANY($1::text[])`,
      [ids],
    );
    const successes = tally(
      recorded.filter((r) => r.processing_result === 'success'),
      (r) => r.external_event_id,
    );
    const perReplica = routedBy.map((counts) => [...counts.values()].reduce((a, b) => a + b, 0));
    table.push(
      row('webhook intake: routed to billing', ids, routed, split(perReplica)),
      row(
        'webhook intake: recorded success',
        ids,
        successes,
        `${recorded.length} rows for ${answers.length} deliveries`,
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
    expect(countsFor(ids, routed)).toEqual(ids.map(() => 1));
    expect(countsFor(ids, successes)).toEqual(ids.map(() => 1));
    expect(recorded).toHaveLength(answers.length);
  });

  it('ends with nothing duplicated and nothing lost in any check', () => {
    expect(table.length).toBeGreaterThan(0);
    expect(table.filter((r) => r.duplicates > 0 || r.lost > 0)).toEqual([]);
  });
});
