import { ChatPlatformClient, type GuildState } from '@lib/chat-platform';
import type { DataSource } from 'typeorm';
import { openDataSource } from '../support/database';
import { raidDemoGuild, seedDemoGuild } from '../../standalone/sandbox';
import { walkthrough } from '../scenarios/walkthrough';
import {
  GatewayStack,
  type GatewayRequestOptions,
  type GatewayResponse,
  type LoggedIn,
} from '../support/gateway-stack';
import {
  ADMIN,
  idMap,
  MEMBER,
  OWNER,
  raid,
  restorable,
  seedProtectedGuild,
} from '../support/restore-scenario';
import { StandaloneStack } from '../support/standalone-stack';
import { waitFor } from '../support/wait';

const ALL_SCOPES = ['roles', 'channels', 'permission_overrides', 'guild_settings'];
/** Administrator of a guild of their own, and of nothing in the journey's guild. */
const OTHER_OWNER = '200000000000000031';

/** What the journey leaves behind: a guild with a snapshot, a finished restore and a subscription. */
interface Fixture {
  guildId: string;
  platformGuildId: string;
  guildName: string;
  snapshotId: string;
  jobId: string;
  subscriptionId: string;
  otherGuildId: string;
}

/** What the scenarios need of the product: its fakes of the outside world and its public API. */
type Product = Pick<GatewayStack, 'platform' | 'provider' | 'start' | 'stop' | 'login'> & {
  gateway: { url: string };
  request(method: string, path: string, options?: GatewayRequestOptions): Promise<GatewayResponse>;
};

/**
 * The product through the gateway only, as the dashboard uses it, then every public endpoint as
 * each kind of caller. Nothing here talks to a service directly. The same scenarios run against
 * the distributed deployment (a process per service, Kafka, Temporal, Redis) and standalone mode
 * (every service in one process, as `npm start` assembles it).
 */
describe.each([
  ['distributed', (): Product => new GatewayStack()],
  ['standalone', (): Product => new StandaloneStack()],
])('the public API through the gateway (%s)', (_mode, makeProduct) => {
  const stack = makeProduct();
  let dataSource: DataSource;
  let fixture: Fixture | undefined;
  const sessions: Record<'owner' | 'admin' | 'member' | 'other', LoggedIn> = {} as never;

  beforeAll(async () => {
    dataSource = await openDataSource();
    await stack.start();
    sessions.owner = await stack.login(OWNER);
    sessions.admin = await stack.login(ADMIN);
    sessions.member = await stack.login(MEMBER);
    sessions.other = await stack.login(OTHER_OWNER);
  });

  afterAll(async () => {
    await stack.stop();
    await dataSource?.destroy();
  });

  const as = (who: keyof typeof sessions) => ({ token: sessions[who].token });

  async function expectOk(response: GatewayResponse, status = 200): Promise<Record<string, unknown>> {
    if (response.status !== status) throw new Error(`expected ${status}, got ${JSON.stringify(response)}`);
    return Promise.resolve(response.body);
  }

  it('the README walkthrough: log in, register the demo guild, snapshot, raid, preview, restore, subscribe', async () => {
    const demo = seedDemoGuild(stack.platform);
    stack.platform.loginAs(demo.ownerId);
    await walkthrough({
      url: stack.gateway.url,
      demoGuild: { platformGuildId: demo.guildId, ownerPlatformUserId: demo.ownerId },
      raid: async () => {
        await raidDemoGuild(stack.platform, demo);
      },
      authorizeCard: (customerKey) => Promise.resolve(stack.provider.authorizeCard({ customerKey })),
    });
  });

  it('journey: register, subscribe, snapshot, raid, preview, restore to the snapshot, upgrade, cancel, uncancel', async () => {
    const guildName = `Journey ${Date.now() % 100_000}`;
    const seeded = seedProtectedGuild(stack.platform, guildName);
    const guild = await expectOk(
      await stack.request('POST', '/api/v1/guilds', {
        ...as('owner'),
        body: { platform_guild_id: seeded.guildId },
      }),
    );
    const guildId = guild.id as string;
    expect(
      (await expectOk(await stack.request('GET', `/api/v1/guilds/${guildId}/license`, as('owner')))).plan,
    ).toMatchObject({ code: 'FREE' });

    // Subscribe: prepare, the provider's card widget, confirm.
    const prepared = await expectOk(
      await stack.request('GET', `/api/v1/billing/prepare?guild_id=${guildId}&plan=PRO`, as('owner')),
    );
    const authKey = stack.provider.authorizeCard({ customerKey: prepared.customer_key as string });
    const confirmed = await expectOk(
      await stack.request('POST', '/api/v1/billing/confirm', {
        ...as('owner'),
        body: {
          checkout_id: prepared.checkout_id,
          auth_key: authKey,
          customer_key: prepared.customer_key,
          guild_id: guildId,
          plan_code: 'PRO',
        },
      }),
    );
    expect(confirmed).toMatchObject({ status: 'active', plan: 'PRO' });
    const subscriptionId = confirmed.id as string;
    await waitFor('the licence to follow the subscription', async () => {
      const license = await stack.request('GET', `/api/v1/guilds/${guildId}/license`, as('owner'));
      return (license.body.plan as { code: string } | undefined)?.code === 'PRO';
    });

    // Snapshot, then the raid.
    const snapshot = await expectOk(
      await stack.request('POST', `/api/v1/guilds/${guildId}/snapshots`, {
        ...as('owner'),
        body: { description: 'before the raid' },
      }),
    );
    const snapshotId = snapshot.id as string;
    const stored = await expectOk(
      await stack.request('GET', `/api/v1/snapshots/${snapshotId}?include_payload=true`, as('owner')),
    );
    await raid(stack.platform, seeded);

    const preview = await expectOk(
      await stack.request('POST', '/api/v1/restore/preview', {
        ...as('owner'),
        body: { snapshot_id: snapshotId, scope: ALL_SCOPES },
      }),
    );
    expect((preview.roles_to_create as { name: string }[]).map((role) => role.name)).toEqual(['Moderator']);
    const started = await expectOk(
      await stack.request('POST', '/api/v1/restore/start', {
        ...as('owner'),
        body: { snapshot_id: snapshotId, scope: ALL_SCOPES, approved_diff_hash: preview.diff_hash },
      }),
      202,
    );
    // docs/behaviour.md §4.2: a client reads `job_id`; the job's own fields come beside it.
    const jobId = started.job_id as string;
    expect(started).toMatchObject({ id: jobId, status: 'running' });
    const seenSteps = new Set<string>();
    const finished = await waitFor(
      'the restore to end',
      async () => {
        const job = await stack.request('GET', `/api/v1/restore/${jobId}`, as('owner'));
        const progress = job.body.progress as { current_step?: string } | undefined;
        if (progress?.current_step) seenSteps.add(progress.current_step);
        return ['completed', 'failed', 'canceled'].includes(job.body.status as string) ? job.body : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 100 },
    );
    expect(finished).toMatchObject({ status: 'completed' });
    const reader = new ChatPlatformClient({
      apiBaseUrl: `${stack.platform.url}/api`,
      botToken: 'fake-bot-token',
    });
    const live = await reader.getGuildState(seeded.guildId);
    const payload = stored.payload as GuildState;
    expect(restorable(live, ALL_SCOPES)).toEqual(
      restorable(payload, ALL_SCOPES, await idMap(dataSource, guildId)),
    );

    // Plan changes by the payer.
    const upgraded = await expectOk(
      await stack.request('POST', `/api/v1/subscriptions/${subscriptionId}/change-plan`, {
        ...as('owner'),
        body: { new_plan_code: 'ENTERPRISE' },
      }),
    );
    expect(upgraded).toMatchObject({ effective_at: 'now' });
    expect(
      await expectOk(
        await stack.request('POST', `/api/v1/subscriptions/${subscriptionId}/cancel`, as('owner')),
      ),
    ).toMatchObject({ canceled_at_period_end: true });
    expect(
      await expectOk(
        await stack.request('POST', `/api/v1/subscriptions/${subscriptionId}/uncancel`, as('owner')),
      ),
    ).toMatchObject({ canceled_at_period_end: false });
    const subscription = await expectOk(
      await stack.request('GET', `/api/v1/subscriptions/${subscriptionId}`, as('owner')),
    );
    expect(subscription).toMatchObject({
      status: 'active',
      plan: 'ENTERPRISE',
      cancel_at_period_end: false,
    });

    // The guild's history has it all. (The DMs are the notifier suite's: here the notifier may
    // still be working through what earlier suites left in Kafka.)
    await waitFor(
      'the audit log',
      async () => {
        const audit = await stack.request(
          'GET',
          `/api/v1/guilds/${guildId}/audit-log?limit=200`,
          as('owner'),
        );
        const types = new Set(
          (audit.body.items as { event_type: string }[] | undefined)?.map((e) => e.event_type),
        );
        return [
          'SubscriptionStarted',
          'SnapshotCreated',
          'RestoreStarted',
          'RestoreCompleted',
          'PlanUpgraded',
          'SubscriptionCanceled',
          'SubscriptionUncanceled',
        ].every((t) => types.has(t));
      },
      { timeoutMs: 90_000 },
    );

    const otherSeeded = stack.platform.seedGuild({
      name: `Other ${guildName}`,
      owner: { id: OTHER_OWNER, username: 'other-owner' },
    });
    const other = await expectOk(
      await stack.request('POST', '/api/v1/guilds', {
        ...as('other'),
        body: { platform_guild_id: otherSeeded.guildId },
      }),
    );
    fixture = {
      guildId,
      platformGuildId: seeded.guildId,
      guildName,
      snapshotId,
      jobId,
      subscriptionId,
      otherGuildId: other.id as string,
    };
  });

  type Persona = 'anonymous' | 'member' | 'other' | 'payer' | 'admin';
  const PERSONAS: Persona[] = ['anonymous', 'member', 'other', 'payer', 'admin'];
  const SESSION_OF: Record<Exclude<Persona, 'anonymous'>, keyof typeof sessions> = {
    member: 'member',
    other: 'other',
    payer: 'owner',
    admin: 'admin',
  };

  it('authorization matrix: every public endpoint as each kind of caller', async () => {
    if (!fixture) throw new Error('the journey did not complete; the matrix needs its guild');
    const f = fixture;
    const confirmBody = {
      auth_key: 'a'.repeat(20),
      customer_key: `user_${sessions.member.user.id}`,
      guild_id: f.guildId,
      plan_code: 'PRO',
    };
    /**
     * Expected status per persona; `-` = not called (it would change what later cells read).
     * Resources of a guild the caller cannot manage are 404 by id, for every method (nothing
     * confirms they exist); guild-scoped routes are 403 without MANAGE_GUILD; a subscription change
     * by a manager who is not the payer is 403 (docs/behaviour.md §5.3, §7: "plan change by non-payer"). The
     * payer's own writes are in the journey.
     */
    const matrix: [string, string, unknown, Record<Persona, number | '-'>][] = [
      ['GET', '/api/v1/me', undefined, { anonymous: 401, member: 200, other: 200, payer: 200, admin: 200 }],
      [
        'GET',
        '/api/v1/me/notification-preferences',
        undefined,
        { anonymous: 401, member: 200, other: 200, payer: 200, admin: 200 },
      ],
      [
        'GET',
        `/api/v1/guilds/${f.guildId}`,
        undefined,
        { anonymous: 401, member: 403, other: 403, payer: 200, admin: 200 },
      ],
      [
        'POST',
        '/api/v1/guilds',
        { platform_guild_id: f.platformGuildId },
        { anonymous: 401, member: 403, other: 403, payer: 200, admin: 200 },
      ],
      [
        'GET',
        `/api/v1/guilds/${f.guildId}/snapshots`,
        undefined,
        { anonymous: 401, member: 403, other: 403, payer: 200, admin: 200 },
      ],
      [
        'POST',
        `/api/v1/guilds/${f.guildId}/snapshots`,
        {},
        { anonymous: 401, member: 403, other: 403, payer: '-', admin: '-' },
      ],
      [
        'GET',
        `/api/v1/snapshots/${f.snapshotId}`,
        undefined,
        { anonymous: 401, member: 404, other: 404, payer: 200, admin: 200 },
      ],
      [
        'DELETE',
        `/api/v1/snapshots/${f.snapshotId}`,
        undefined,
        { anonymous: 401, member: 404, other: 404, payer: '-', admin: '-' },
      ],
      [
        'POST',
        '/api/v1/restore/preview',
        { snapshot_id: f.snapshotId, scope: ALL_SCOPES },
        { anonymous: 401, member: 404, other: 404, payer: 200, admin: 200 },
      ],
      [
        'POST',
        '/api/v1/restore/start',
        { snapshot_id: f.snapshotId, scope: ALL_SCOPES, approved_diff_hash: `sha256:${'0'.repeat(64)}` },
        { anonymous: 401, member: 404, other: 404, payer: 409, admin: 409 },
      ],
      [
        'GET',
        `/api/v1/restore/${f.jobId}`,
        undefined,
        { anonymous: 401, member: 404, other: 404, payer: 200, admin: 200 },
      ],
      [
        'POST',
        `/api/v1/restore/${f.jobId}/cancel`,
        undefined,
        { anonymous: 401, member: 404, other: 404, payer: 409, admin: 409 },
      ],
      [
        'GET',
        `/api/v1/guilds/${f.guildId}/license`,
        undefined,
        { anonymous: 401, member: 403, other: 403, payer: 200, admin: 200 },
      ],
      [
        'GET',
        `/api/v1/guilds/${f.guildId}/audit-log`,
        undefined,
        { anonymous: 401, member: 403, other: 403, payer: 200, admin: 200 },
      ],
      [
        'GET',
        `/api/v1/billing/prepare?guild_id=${f.guildId}&plan=PRO`,
        undefined,
        { anonymous: 401, member: 403, other: 403, payer: 409, admin: 409 },
      ],
      [
        'POST',
        '/api/v1/billing/confirm',
        confirmBody,
        { anonymous: 401, member: 403, other: 403, payer: '-', admin: '-' },
      ],
      [
        'GET',
        `/api/v1/guilds/${f.guildId}/subscriptions`,
        undefined,
        { anonymous: 401, member: 403, other: 403, payer: 200, admin: 200 },
      ],
      [
        'GET',
        `/api/v1/subscriptions/${f.subscriptionId}`,
        undefined,
        { anonymous: 401, member: 404, other: 404, payer: 200, admin: 200 },
      ],
      [
        'POST',
        `/api/v1/subscriptions/${f.subscriptionId}/change-plan`,
        { new_plan_code: 'PRO' },
        { anonymous: 401, member: 404, other: 404, payer: '-', admin: 403 },
      ],
      [
        'POST',
        `/api/v1/subscriptions/${f.subscriptionId}/cancel`,
        undefined,
        { anonymous: 401, member: 404, other: 404, payer: '-', admin: 403 },
      ],
      [
        'POST',
        `/subscriptions/${f.subscriptionId}/cancel`,
        undefined,
        { anonymous: 401, member: 404, other: 404, payer: '-', admin: 403 },
      ],
      [
        'POST',
        `/api/v1/subscriptions/${f.subscriptionId}/uncancel`,
        undefined,
        { anonymous: 401, member: 404, other: 404, payer: '-', admin: 403 },
      ],
    ];
    const got: string[] = [];
    const want: string[] = [];
    const leaks: string[] = [];
    for (const [method, path, body, expected] of matrix) {
      for (const persona of PERSONAS) {
        if (expected[persona] === '-') continue;
        const options = persona === 'anonymous' ? {} : as(SESSION_OF[persona]);
        const response = await stack.request(method, path, { ...options, body });
        got.push(`${persona} ${method} ${path} -> ${response.status}`);
        want.push(`${persona} ${method} ${path} -> ${expected[persona]}`);
        if (response.status >= 400) {
          expect(response.headers.get('content-type')).toContain('application/problem+json');
          const text = JSON.stringify(response.body);
          if (
            persona !== 'payer' &&
            persona !== 'admin' &&
            (text.includes(f.guildName) || text.includes(f.platformGuildId))
          ) {
            leaks.push(`${persona} ${method} ${path}: ${text}`);
          }
        }
      }
    }
    expect(got).toEqual(want);
    expect(leaks).toEqual([]);
  });
});
