import 'reflect-metadata';
import type { SeededGuild } from '@lib/sandbox';
import { GatewayEnv } from '../../apps/gateway/src/gateway.env';
import type { AppProcess } from '../support/app-process';
import { GatewayStack, type LoggedIn } from '../support/gateway-stack';
import { recordOutcome } from './support/fault-report';
import {
  between,
  damageLoadGuild,
  LoadRecorder,
  loadUserPlatformId,
  loginConcurrently,
  logEvidence,
  Mutex,
  runPool,
  seedLoadGuild,
  sleep,
} from './support/load-users';

/**
 * A load run: USERS virtual users, each with a platform user and a guild of its own, go
 * through the user journey at the same time through the gateway, as the dashboard would: log in
 * (the real OAuth flow), register the guild, subscribe to PRO (prepare, the provider's card widget,
 * confirm), take the baseline snapshot; then, for LOAD_DURATION_S, a mix of reads with a manual
 * snapshot now and then (the PRO slot is taken: a designed 409), a restore preview every
 * PREVIEW_EVERY_S, and for RESTORE_SHARE of the users one restore of small damage to their guild
 * (sometimes submitted twice at once: one job per guild, the second a designed 409).
 *
 * The load runs through a second gateway with the production rate limits and TRUST_PROXY_HOPS=1,
 * each user from an address of its own as behind the ingress, so a 429 is the limit doing its job.
 * Designed outcomes: 2xx, 429, and 409 with the codes DESIGNED_409 lists per operation. Everything
 * else (5xx, other 4xx, no answer) is an error. After the load: every restore started ended
 * `completed` and repaired the guild, every guild has its one subscription `active`, and the
 * provider approved exactly one charge per subscription. Latencies are printed, never asserted.
 */
// `npm run test:load` runs the full 200 users for a minute; `npm test` a smaller run (scripts/test.sh).
const LOAD_DURATION_S = Number(process.env.LOAD_DURATION_S) || 60;
const USERS = Number(process.env.LOAD_USERS) || 200;
/** Users set up at once (login, register, subscribe, licence, baseline snapshot). */
const SETUP_CONCURRENCY = 40;
const THINK_MS: [number, number] = [0, 50];
/** Each user previews a restore once per this many seconds (uniform); the first within the window. */
const PREVIEW_EVERY_S: [number, number] = [15, 45];
/** Share of users who start one restore, at a random moment of the load. */
const RESTORE_SHARE = 0.15;
/** Share of restore starts submitted twice at once, as a double click does. */
const DOUBLE_SUBMIT_SHARE = 0.3;
/** How often the dashboard of a user with a running restore reads its progress. */
const JOB_POLL_MS = 2_000;
const LICENCE_TIMEOUT_MS = 60_000;
const DRAIN_TIMEOUT_MS = 90_000;
const ALL_SCOPES = ['roles', 'channels', 'permission_overrides', 'guild_settings'];
/** Log lines of a call between processes that got no answer. */
const UNREACHABLE = /upstream unreachable|upstream timed out|did not answer|ECONNRESET|socket hang up|EPIPE/;
const TERMINAL = new Set(['completed', 'failed', 'canceled']);

/** The 409s an operation may answer by design (docs/behaviour.md §7, §8); a 409 with another code is an error. */
const DESIGNED_409 = {
  'snapshot.create': ['ErrPlanLimitExceeded', 'ErrRestoreInProgress'],
  'restore.start': ['ErrRestoreAlreadyInProgress', 'ErrDiffChanged'],
} as const;

/** The reads of the mix with their weights; the writes come on their own schedule. */
const READ_MIX: [string, number][] = [
  ['guild.read', 20],
  ['snapshots.list', 20],
  ['licence.read', 15],
  ['prefs.read', 10],
  ['audit.read', 10],
  ['subscriptions.read', 5],
  ['me.read', 5],
  ['snapshot.create', 5],
];

interface VirtualUser {
  index: number;
  platformUserId: string;
  /** The client address the ingress would put in X-Forwarded-For. */
  ip: string;
  seeded: SeededGuild;
  ready: boolean;
  session?: LoggedIn;
  guildId?: string;
  subscriptionId?: string;
  snapshotId?: string;
  nextPreviewAt: number;
  restoreAt: number;
  /** Restore job id -> last status read. */
  jobs: Map<string, string>;
  activeJob?: string;
  nextJobPollAt: number;
}

describe('load: the journey mix through the gateway', () => {
  const stack = new GatewayStack();
  let load: AppProcess;
  const consent = new Mutex();
  const timings: Record<string, number> = {};

  beforeAll(async () => {
    const started = Date.now();
    await stack.start();
    const defaults = new GatewayEnv();
    load = await stack.startGateway({
      RATE_LIMIT_SESSION_PER_MINUTE: String(defaults.RATE_LIMIT_SESSION_PER_MINUTE),
      RATE_LIMIT_IP_PER_MINUTE: String(defaults.RATE_LIMIT_IP_PER_MINUTE),
      TRUST_PROXY_HOPS: '1',
    });
    timings.stackStartS = (Date.now() - started) / 1000;
  }, 180_000);

  afterAll(async () => {
    await load?.stop();
    await stack.stop();
  });

  it(
    `${USERS} users for ${LOAD_DURATION_S} s: no error but designed 409/429, restores completed, one charge per subscription`,
    async () => {
      const setup = new LoadRecorder(DESIGNED_409);
      const traffic = new LoadRecorder(DESIGNED_409);
      /** Outcomes that are not one answer: a restore that did not complete, a subscription gone. */
      const failures: string[] = [];
      let extraManualSnapshots = 0;

      const users: VirtualUser[] = Array.from({ length: USERS }, (_, index) => {
        const platformUserId = loadUserPlatformId(index);
        return {
          index,
          platformUserId,
          ip: `10.77.${Math.floor(index / 250)}.${(index % 250) + 1}`,
          seeded: seedLoadGuild(stack.platform, index, platformUserId),
          ready: false,
          nextPreviewAt: 0,
          restoreAt: Number.POSITIVE_INFINITY,
          jobs: new Map(),
          nextJobPollAt: 0,
        };
      });

      const call = (
        recorder: LoadRecorder,
        user: VirtualUser,
        op: string,
        method: string,
        path: string,
        body?: unknown,
      ) =>
        recorder.request(load.url, op, method, path, {
          token: user.session!.token,
          body,
          headers: { 'x-forwarded-for': user.ip },
        });

      // --- setup: log in, register, subscribe, wait for the licence, baseline snapshot ---
      const setupStarted = Date.now();
      await runPool(users, SETUP_CONCURRENCY, async (user) => {
        const fail = (step: string, detail: string): void => {
          failures.push(`setup ${user.index} ${step}: ${detail}`);
        };
        /** A setup step that did not answer as needed; recorded here unless it already counts as an error. */
        const stop = (step: string, answer: { status: number; body: unknown; verdict: string }) => {
          if (answer.verdict !== 'error') fail(step, `${answer.status} ${JSON.stringify(answer.body)}`);
        };
        const loginStarted = performance.now();
        try {
          user.session = await loginConcurrently(
            stack.gateway.url,
            stack.platform,
            user.platformUserId,
            consent,
          );
          setup.record('login', { status: 200, body: {} }, performance.now() - loginStarted);
        } catch (error) {
          setup.record(
            'login',
            { status: 0, body: { detail: String(error) } },
            performance.now() - loginStarted,
          );
          return;
        }
        const registered = await call(setup, user, 'guild.register', 'POST', '/api/v1/guilds', {
          platform_guild_id: user.seeded.guildId,
        });
        if (registered.status !== 200) return stop('register', registered);
        user.guildId = registered.body.id as string;
        const prepared = await call(
          setup,
          user,
          'billing.prepare',
          'GET',
          `/api/v1/billing/prepare?guild_id=${user.guildId}&plan=PRO`,
        );
        if (prepared.status !== 200) return stop('prepare', prepared);
        const customerKey = prepared.body.customer_key as string;
        const authKey = stack.provider.authorizeCard({ customerKey });
        const confirmed = await call(setup, user, 'billing.confirm', 'POST', '/api/v1/billing/confirm', {
          checkout_id: prepared.body.checkout_id,
          auth_key: authKey,
          customer_key: customerKey,
          guild_id: user.guildId,
          plan_code: 'PRO',
        });
        if (confirmed.status !== 200 || confirmed.body.status !== 'active') return stop('confirm', confirmed);
        user.subscriptionId = confirmed.body.id as string;
        const deadline = Date.now() + LICENCE_TIMEOUT_MS;
        for (;;) {
          const licence = await call(
            setup,
            user,
            'licence.wait',
            'GET',
            `/api/v1/guilds/${user.guildId}/license`,
          );
          if ((licence.body.plan as { code?: string } | undefined)?.code === 'PRO') break;
          if (Date.now() > deadline) return fail('licence', `not PRO after ${LICENCE_TIMEOUT_MS} ms`);
          await sleep(250);
        }
        const snapshot = await call(
          setup,
          user,
          'snapshot.baseline',
          'POST',
          `/api/v1/guilds/${user.guildId}/snapshots`,
          {
            description: 'baseline',
          },
        );
        if (snapshot.status !== 200) return stop('baseline snapshot', snapshot);
        user.snapshotId = snapshot.body.id as string;
        user.ready = true;
      });
      timings.setupS = (Date.now() - setupStarted) / 1000;
      const ready = users.filter((user) => user.ready);

      // --- the load ---
      let mark = 0;
      const loadStarted = Date.now();
      const loadEnds = loadStarted + LOAD_DURATION_S * 1000;
      for (const user of ready) {
        user.nextPreviewAt = loadStarted + between(0, PREVIEW_EVERY_S[1]) * 1000;
        if (Math.random() < RESTORE_SHARE) {
          user.restoreAt = loadStarted + between(0.05, 0.5) * LOAD_DURATION_S * 1000;
        }
      }
      const totalWeight = READ_MIX.reduce((sum, [, weight]) => sum + weight, 0);
      const pickRead = () => {
        let roll = Math.random() * totalWeight;
        for (const [op, weight] of READ_MIX) if ((roll -= weight) < 0) return op;
        return READ_MIX[0][0];
      };

      const read = async (user: VirtualUser, op: string) => {
        const guild = `/api/v1/guilds/${user.guildId}`;
        switch (op) {
          case 'guild.read':
            return call(traffic, user, op, 'GET', guild);
          case 'snapshots.list':
            return call(traffic, user, op, 'GET', `${guild}/snapshots`);
          case 'licence.read': {
            const licence = await call(traffic, user, op, 'GET', `${guild}/license`);
            const plan = (licence.body.plan as { code?: string } | undefined)?.code;
            if (licence.status === 200 && plan !== 'PRO')
              failures.push(`licence of user ${user.index} read ${plan}`);
            return licence;
          }
          case 'prefs.read':
            return call(traffic, user, op, 'GET', '/api/v1/me/notification-preferences');
          case 'audit.read':
            return call(traffic, user, op, 'GET', `${guild}/audit-log?limit=20`);
          case 'subscriptions.read':
            return call(traffic, user, op, 'GET', `${guild}/subscriptions`);
          case 'me.read':
            return call(traffic, user, op, 'GET', '/api/v1/me');
          case 'snapshot.create': {
            const created = await call(traffic, user, op, 'POST', `${guild}/snapshots`, {
              description: 'now and then',
            });
            // PRO has one manual slot and the baseline holds it.
            if (created.status === 200) extraManualSnapshots++;
            return created;
          }
          default:
            throw new Error(`no read ${op}`);
        }
      };

      const startRestore = async (user: VirtualUser) => {
        damageLoadGuild(stack.platform, user.seeded, ++mark);
        const preview = await call(traffic, user, 'restore.preview', 'POST', '/api/v1/restore/preview', {
          snapshot_id: user.snapshotId,
          scope: ALL_SCOPES,
        });
        if (preview.status !== 200) return;
        const body = {
          snapshot_id: user.snapshotId,
          scope: ALL_SCOPES,
          approved_diff_hash: preview.body.diff_hash,
          options: { create_pre_restore_snapshot: Math.random() < 0.5 },
        };
        const submits = Math.random() < DOUBLE_SUBMIT_SHARE ? 2 : 1;
        const answers = await Promise.all(
          Array.from({ length: submits }, () =>
            call(traffic, user, 'restore.start', 'POST', '/api/v1/restore/start', body),
          ),
        );
        const accepted = answers.filter((answer) => answer.status === 202);
        if (accepted.length > 1) {
          failures.push(
            `user ${user.index}: a double submit started ${accepted.length} restores of one guild`,
          );
        }
        for (const answer of accepted) {
          user.jobs.set(answer.body.id as string, answer.body.status as string);
          user.activeJob = answer.body.id as string;
          user.nextJobPollAt = Date.now() + JOB_POLL_MS;
        }
      };

      const readJob = async (user: VirtualUser, jobId: string) => {
        const job = await call(traffic, user, 'restore.read', 'GET', `/api/v1/restore/${jobId}`);
        if (job.status !== 200) return;
        user.jobs.set(jobId, job.body.status as string);
        if (TERMINAL.has(job.body.status as string)) user.activeJob = undefined;
      };

      await Promise.all(
        ready.map(async (user) => {
          while (Date.now() < loadEnds) {
            const now = Date.now();
            if (user.activeJob && now >= user.nextJobPollAt) {
              user.nextJobPollAt = now + JOB_POLL_MS;
              await readJob(user, user.activeJob);
            } else if (now >= user.restoreAt) {
              user.restoreAt = Number.POSITIVE_INFINITY;
              await startRestore(user);
            } else if (now >= user.nextPreviewAt) {
              user.nextPreviewAt = now + between(...PREVIEW_EVERY_S) * 1000;
              await call(traffic, user, 'restore.preview', 'POST', '/api/v1/restore/preview', {
                snapshot_id: user.snapshotId,
                scope: ALL_SCOPES,
              });
            } else {
              await read(user, pickRead());
            }
            await sleep(between(...THINK_MS));
          }
        }),
      );
      const loadSeconds = (Date.now() - loadStarted) / 1000;
      timings.loadS = loadSeconds;
      const platformRequests = stack.platform
        .requestLog()
        .filter((entry) => entry.at >= loadStarted && entry.at <= loadStarted + loadSeconds * 1000);

      // --- after the load: every restore ends completed and repaired its guild ---
      const drainStarted = Date.now();
      const owner = (user: VirtualUser) => ({ token: user.session!.token });
      const unfinished = () =>
        ready.flatMap((user) =>
          [...user.jobs].filter(([, status]) => !TERMINAL.has(status)).map(([jobId]) => ({ user, jobId })),
        );
      while (unfinished().length > 0 && Date.now() - drainStarted < DRAIN_TIMEOUT_MS) {
        await runPool(unfinished(), 20, async ({ user, jobId }) => {
          const job = await stack.request('GET', `/api/v1/restore/${jobId}`, owner(user));
          if (job.status === 200) user.jobs.set(jobId, job.body.status as string);
        });
        if (unfinished().length > 0) await sleep(500);
      }
      timings.drainS = (Date.now() - drainStarted) / 1000;
      let restores = 0;
      for (const user of ready) {
        for (const [jobId, status] of user.jobs) {
          restores++;
          if (status !== 'completed') failures.push(`restore ${jobId} of user ${user.index} ended ${status}`);
        }
        if ([...user.jobs.values()].includes('completed')) {
          const live = stack.platform.guild(user.seeded.guildId);
          const moderator = live.roles.find((role) => role.id === user.seeded.roles.Moderator);
          const general = live.channels.find((channel) => channel.id === user.seeded.channels.general);
          if (moderator?.color !== 0x2ecc71 || general?.topic !== 'Anything goes') {
            failures.push(`guild of user ${user.index} not repaired by its completed restore`);
          }
        }
      }

      // --- every subscription active once, and charged once ---
      const subscribed = users.filter((user) => user.subscriptionId);
      await runPool(subscribed, 20, async (user) => {
        const listed = await stack.request(
          'GET',
          `/api/v1/guilds/${user.guildId}/subscriptions`,
          owner(user),
        );
        const items = (listed.body.items ?? []) as { id: string; status: string }[];
        if (
          listed.status !== 200 ||
          items.length !== 1 ||
          items[0].id !== user.subscriptionId ||
          items[0].status !== 'active'
        ) {
          failures.push(`subscriptions of user ${user.index}: ${listed.status} ${JSON.stringify(items)}`);
        }
      });
      const chargesPerSubscription = new Map<string, number>();
      for (const charge of stack.provider.approvedCharges()) {
        const subscriptionId = /^sub_(.+)_\d{3}_r\d+$/.exec(charge.orderId)?.[1] ?? charge.orderId;
        chargesPerSubscription.set(subscriptionId, (chargesPerSubscription.get(subscriptionId) ?? 0) + 1);
      }
      let duplicated = 0;
      for (const user of subscribed) {
        const charges = chargesPerSubscription.get(user.subscriptionId!) ?? 0;
        if (charges === 0)
          failures.push(`subscription ${user.subscriptionId} active without an approved charge`);
        duplicated += Math.max(0, charges - 1);
      }

      // --- report ---
      const answers = traffic.answersByCode();
      const count = (prefix: string) =>
        [...answers].filter(([key]) => key.startsWith(prefix)).reduce((sum, [, n]) => sum + n, 0);
      const reqPerS = traffic.total / loadSeconds;
      const errors = [...setup.errors, ...traffic.errors];
      process.stdout.write(
        [
          '',
          setup.table(
            `setup of ${USERS} users (${SETUP_CONCURRENCY} at a time), latencies in ms`,
            timings.setupS,
          ),
          '',
          traffic.table(
            `load: ${ready.length} users for ${LOAD_DURATION_S} s through a gateway with the default limits, latencies in ms`,
            loadSeconds,
          ),
          '',
          `designed: 409 x${count('409 ')}, 429 x${count('429 ')}; restores started ${restores}, ` +
            `ended ${[...new Set(ready.flatMap((user) => [...user.jobs.values()]))].join('/') || '-'}; ` +
            `manual snapshots past the PRO slot ${extraManualSnapshots}`,
          `platform (bot API) during the load: ${platformRequests.length} requests, ` +
            `${(platformRequests.length / loadSeconds).toFixed(1)}/s, ` +
            `${platformRequests.filter((entry) => entry.status === 429).length} answered 429`,
          `provider: ${chargesPerSubscription.size} subscriptions charged, ${duplicated} second charges`,
          `time: stack ${timings.stackStartS.toFixed(1)} s, setup ${timings.setupS.toFixed(1)} s, ` +
            `load ${loadSeconds.toFixed(1)} s, restores drained ${timings.drainS.toFixed(1)} s`,
          `errors: ${errors.length}${errors.length ? '' : ' (none)'}`,
          ...errors.slice(0, 40).map((e) => `  ${e.op} ${e.status} ${e.code} ${e.detail}`),
          `failures: ${failures.length}${failures.length ? '' : ' (none)'}`,
          ...failures.slice(0, 40).map((failure) => `  ${failure}`),
          'logs of the apps:',
          ...logEvidence('load gateway', load.output(), UNREACHABLE),
          ...logEvidence('gateway', stack.gateway.output(), UNREACHABLE),
          ...logEvidence('recovery', stack.recovery.output(), UNREACHABLE),
          ...logEvidence('billing', stack.billing.output(), UNREACHABLE),
          ...logEvidence('licensing', stack.licensing.output(), UNREACHABLE),
          ...logEvidence('notifier', stack.notifier.output(), UNREACHABLE),
          '',
        ].join('\n'),
      );

      try {
        recordOutcome({
          fault: `load: ${USERS} users, ${LOAD_DURATION_S} s`,
          checked: 'journey mix through the gateway: no error but designed 409/429',
          sent: setup.total + traffic.total,
          delivered: setup.designedOrOk + traffic.designedOrOk,
          duplicated,
          lost: errors.length + failures.length,
          notes:
            `req/s=${reqPerS.toFixed(1)}, 409=${count('409 ')}, 429=${count('429 ')}, restores=${restores}, ` +
            `setup ${timings.setupS.toFixed(0)} s; p99 per op (ms): ${traffic.p99s()}`,
        });
      } finally {
        expect(errors.filter((error) => error.status >= 500 || error.status === 0)).toEqual([]);
        expect(errors).toEqual([]);
        expect(failures).toEqual([]);
        expect(ready.length).toBe(USERS);
        expect(extraManualSnapshots).toBe(0);
      }
    },
    (LOAD_DURATION_S + 300) * 1000,
  );
});
