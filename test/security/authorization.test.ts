import type { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { openDataSource } from '../support/database';
import { GatewayStack, type GatewayResponse, type LoggedIn } from '../support/gateway-stack';
import { ADMIN, MEMBER, OWNER, seedProtectedGuild } from '../support/restore-scenario';
import { waitFor } from '../support/wait';

/** A platform user who is in none of the owner's guilds. */
const STRANGER = '200000000000000041';
const MALFORMED = 'not-a-uuid';
const ZERO_HASH = `sha256:${'0'.repeat(64)}`;

type Body = Record<string, unknown>;
/** What a caller can compare between two answers: all but what differs for any two requests. */
type Answer = { status: number } & Body;

/** A guild of the owner's on PRO, with a snapshot and a subscription; the first also has a restore. */
interface OwnedGuild {
  guildId: string;
  snapshotId: string;
  subscriptionId: string;
}

/**
 * Access is checked before anything else. A user who cannot manage the owner's
 * guild probes it through the gateway, as an attacker would with ids read from a screenshot or a
 * log: every answer must be the one a random id gets, whatever the body, whatever the guild's
 * state. A guild route answers 403 ErrForbidden to anyone who does not manage the guild (a guild
 * nobody knows included); a resource of such a guild answers the 404 of a missing one.
 */
describe('authorization comes before validation', () => {
  const stack = new GatewayStack();
  let dataSource: DataSource;
  const users = {} as Record<'owner' | 'admin' | 'member' | 'stranger', LoggedIn>;
  let active: OwnedGuild & { jobId: string };
  let inactive: OwnedGuild;

  beforeAll(async () => {
    dataSource = await openDataSource();
    await stack.start();
    users.owner = await stack.login(OWNER);
    users.admin = await stack.login(ADMIN);
    users.member = await stack.login(MEMBER);
    users.stranger = await stack.login(STRANGER);
    active = { ...(await ownedGuild('active')), jobId: '' };
    active.jobId = await finishedRestore(active.snapshotId);
    inactive = await ownedGuild('inactive');
    // The bot was removed from this one: only its recorded owner may still hear about it.
    await dataSource.query(`UPDATE recovery.guilds SET removed_at = now() WHERE id = $1`, [inactive.guildId]);
  });

  afterAll(async () => {
    await stack.stop();
    await dataSource?.destroy();
  });

  async function call(
    who: keyof typeof users,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<GatewayResponse> {
    return stack.request(method, path, { token: users[who].token, body });
  }

  async function answer(
    who: keyof typeof users,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<Answer> {
    const { status, body: problem } = await call(who, method, path, body);
    const { request_id: _requestId, instance: _instance, ...rest } = problem;
    // A problem body repeats the status; a resource's own `status` gives way to the HTTP one.
    return { ...rest, status };
  }

  async function ok(response: GatewayResponse, status = 200): Promise<Body> {
    if (response.status !== status) throw new Error(`expected ${status}, got ${JSON.stringify(response)}`);
    return Promise.resolve(response.body);
  }

  /** A registered guild of OWNER's (ADMIN administers it, MEMBER is a plain member) on PRO. */
  async function ownedGuild(label: string): Promise<OwnedGuild> {
    const seeded = seedProtectedGuild(stack.platform, `Authz ${label} ${uuidv7().slice(-6)}`);
    const guild = await ok(
      await call('owner', 'POST', '/api/v1/guilds', { platform_guild_id: seeded.guildId }),
    );
    const guildId = guild.id as string;
    const prepared = await ok(
      await call('owner', 'GET', `/api/v1/billing/prepare?guild_id=${guildId}&plan=PRO`),
    );
    const customerKey = prepared.customer_key as string;
    const subscription = await ok(
      await call('owner', 'POST', '/api/v1/billing/confirm', {
        checkout_id: prepared.checkout_id,
        auth_key: stack.provider.authorizeCard({ customerKey }),
        customer_key: customerKey,
        guild_id: guildId,
        plan_code: 'PRO',
      }),
    );
    await waitFor('the PRO licence', async () => {
      const license = await call('owner', 'GET', `/api/v1/guilds/${guildId}/license`);
      return (license.body.plan as { code?: string } | undefined)?.code === 'PRO';
    });
    const snapshot = await ok(
      await call('owner', 'POST', `/api/v1/guilds/${guildId}/snapshots`, { description: label }),
    );
    return { guildId, snapshotId: snapshot.id as string, subscriptionId: subscription.id as string };
  }

  async function finishedRestore(snapshotId: string): Promise<string> {
    const preview = await ok(
      await call('owner', 'POST', '/api/v1/restore/preview', { snapshot_id: snapshotId, scope: ['roles'] }),
    );
    const started = await ok(
      await call('owner', 'POST', '/api/v1/restore/start', {
        snapshot_id: snapshotId,
        scope: ['roles'],
        approved_diff_hash: preview.diff_hash,
      }),
      202,
    );
    const jobId = started.id as string;
    await waitFor(
      'the restore to end',
      async () => (await call('owner', 'GET', `/api/v1/restore/${jobId}`)).body.status === 'completed',
      { timeoutMs: 90_000, intervalMs: 200 },
    );
    return jobId;
  }

  /**
   * Every (user, guild or resource id, body) the callers try, and the answer each got, beside the
   * one expected: a failure lists every probe that told something apart.
   */
  async function expectAllAnswer(
    expected: Answer,
    probes: [who: keyof typeof users, method: string, path: string, body?: unknown][],
  ): Promise<void> {
    const got: string[] = [];
    for (const [who, method, path, body] of probes) {
      const seen = await answer(who, method, path, body);
      got.push(`${who} ${method} ${path} ${JSON.stringify(body)} -> ${JSON.stringify(seen)}`);
    }
    expect(got).toEqual(
      probes.map(
        ([who, method, path, body]) =>
          `${who} ${method} ${path} ${JSON.stringify(body)} -> ${JSON.stringify(expected)}`,
      ),
    );
  }

  /** A guild route, for a guild id: a body (or query) a manager may send, and one that is invalid. */
  interface GuildRoute {
    method: string;
    path: (guildId: string) => string;
    valid?: (guildId: string) => unknown;
    invalid?: (guildId: string) => unknown;
    /** For a route whose query carries the fault, the path with an invalid query. */
    invalidPath?: (guildId: string) => string;
  }

  const confirmBody = (guildId: string, planCode = 'PRO') => ({
    checkout_id: '0193a1b2-c3d4-4e5f-8a9b-0c1d2e3f4a5b',
    auth_key: 'a'.repeat(20),
    customer_key: `user_${users.member.user.id}`,
    guild_id: guildId,
    plan_code: planCode,
  });
  const PENDING_CHANGE_ID = '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c';
  const GUILD_ROUTES: GuildRoute[] = [
    { method: 'GET', path: (g) => `/api/v1/guilds/${g}` },
    {
      method: 'GET',
      path: (g) => `/api/v1/guilds/${g}/snapshots?limit=5`,
      invalidPath: (g) => `/api/v1/guilds/${g}/snapshots?limit=0`,
    },
    {
      method: 'POST',
      path: (g) => `/api/v1/guilds/${g}/snapshots`,
      valid: () => ({ description: 'probe' }),
      invalid: () => ({ trigger: 'scheduled' }),
    },
    { method: 'GET', path: (g) => `/api/v1/guilds/${g}/antinuke` },
    {
      method: 'PUT',
      path: (g) => `/api/v1/guilds/${g}/antinuke`,
      valid: () => ({ threshold: 3, window_seconds: 10, auto_action_enabled: false }),
      invalid: () => ({ threshold: 1000 }),
    },
    // The owner's answers to a pending AntiNuke change, and their list of deleted snapshots.
    { method: 'POST', path: (g) => `/api/v1/guilds/${g}/antinuke/pending/${PENDING_CHANGE_ID}/refuse` },
    { method: 'POST', path: (g) => `/api/v1/guilds/${g}/antinuke/pending/${PENDING_CHANGE_ID}/approve` },
    { method: 'GET', path: (g) => `/api/v1/guilds/${g}/deleted-snapshots` },
    {
      method: 'GET',
      path: (g) => `/api/v1/guilds/${g}/incidents?limit=5`,
      invalidPath: (g) => `/api/v1/guilds/${g}/incidents?limit=0`,
    },
    { method: 'GET', path: (g) => `/api/v1/guilds/${g}/antinuke/lockdown` },
    {
      method: 'POST',
      path: (g) => `/api/v1/guilds/${g}/antinuke/lockdown`,
      valid: () => ({ minutes: 5 }),
      invalid: () => ({ minutes: 0 }),
    },
    { method: 'DELETE', path: (g) => `/api/v1/guilds/${g}/antinuke/lockdown` },
    {
      method: 'POST',
      path: (g) => `/api/v1/guilds/${g}/antinuke/incidents/0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b/release`,
    },
    {
      method: 'GET',
      path: (g) => `/api/v1/guilds/${g}/member-names?platform_user_id=${OWNER}`,
      invalidPath: (g) => `/api/v1/guilds/${g}/member-names?platform_user_id=abc`,
    },
    {
      method: 'GET',
      path: (g) => `/api/v1/guilds/${g}/audit-log?limit=5`,
      invalidPath: (g) => `/api/v1/guilds/${g}/audit-log?event_type=Nope`,
    },
    { method: 'GET', path: (g) => `/api/v1/guilds/${g}/license` },
    {
      method: 'GET',
      path: (g) => `/api/v1/guilds/${g}/subscriptions?limit=5`,
      invalidPath: (g) => `/api/v1/guilds/${g}/subscriptions?limit=0`,
    },
    {
      method: 'GET',
      path: (g) => `/api/v1/billing/prepare?guild_id=${g}&plan=PRO`,
      invalidPath: (g) => `/api/v1/billing/prepare?guild_id=${g}&plan=GOLD`,
    },
    {
      method: 'POST',
      path: () => '/api/v1/billing/confirm',
      valid: (g) => confirmBody(g),
      invalid: (g) => confirmBody(g, 'GOLD'),
    },
  ];

  it('a guild route answers one 403 to whoever cannot manage the guild: any guild, any state, any body', async () => {
    const forbidden = await answer('member', 'GET', `/api/v1/guilds/${uuidv7()}`);
    expect(forbidden).toMatchObject({ status: 403, code: 'ErrForbidden' });

    for (const route of GUILD_ROUTES) {
      const probes: Parameters<typeof expectAllAnswer>[1] = [];
      for (const who of ['member', 'stranger'] as const) {
        for (const guildId of [active.guildId, inactive.guildId, uuidv7(), MALFORMED]) {
          probes.push([who, route.method, route.path(guildId), route.valid?.(guildId)]);
          if (route.invalid) probes.push([who, route.method, route.path(guildId), route.invalid(guildId)]);
          if (route.invalidPath) probes.push([who, route.method, route.invalidPath(guildId)]);
        }
      }
      await expectAllAnswer(forbidden, probes);

      // What the same requests tell a manager, so the probes above were worth making.
      if (route.invalid || route.invalidPath) {
        const refused = route.invalidPath
          ? await answer('admin', route.method, route.invalidPath(active.guildId))
          : await answer('admin', route.method, route.path(active.guildId), route.invalid!(active.guildId));
        expect([route.method, route.path(':g'), refused]).toEqual([
          route.method,
          route.path(':g'),
          expect.objectContaining({ status: 400, code: 'ErrValidation' }),
        ]);
      }
      expect([
        route.method,
        route.path(':g'),
        await answer('owner', route.method, route.path(inactive.guildId), route.valid?.(inactive.guildId)),
      ]).toEqual([
        route.method,
        route.path(':g'),
        expect.objectContaining({ status: 409, code: 'ErrGuildInactive' }),
      ]);
    }
    // A guild named in the body or the query that is missing altogether names no guild either.
    await expectAllAnswer(forbidden, [
      ['member', 'POST', '/api/v1/billing/confirm', { auth_key: 'x', plan_code: 'GOLD' }],
      ['member', 'GET', '/api/v1/billing/prepare?plan=GOLD'],
    ]);
  });

  /** A resource route, for a resource id: the bodies a caller might send. */
  interface ResourceRoute {
    method: string;
    path: (id: string) => string;
    bodies?: ((id: string) => unknown)[];
  }

  const previewBodies = [
    (id: string) => ({ snapshot_id: id, scope: ['roles'] }),
    (id: string) => ({ snapshot_id: id, scope: ['everything'] }),
    (id: string) => ({ snapshot_id: id }),
  ];
  const startBodies = [
    (id: string) => ({ snapshot_id: id, scope: ['roles'], approved_diff_hash: ZERO_HASH }),
    (id: string) => ({ snapshot_id: id, scope: ['roles'], approved_diff_hash: 'sha1:0' }),
    (id: string) => ({ snapshot_id: id, scope: [], options: { create_pre_restore_snapshot: 'yes' } }),
  ];
  const changePlanBodies = [
    (_: string) => ({ new_plan_code: 'PRO' }),
    (_: string) => ({ new_plan_code: 'GOLD' }),
  ];

  const RESOURCES: {
    kind: string;
    code: string;
    ids: () => string[];
    routes: ResourceRoute[];
  }[] = [
    {
      kind: 'snapshot',
      code: 'ErrSnapshotNotFound',
      ids: () => [active.snapshotId, inactive.snapshotId],
      routes: [
        { method: 'GET', path: (id) => `/api/v1/snapshots/${id}?include_payload=true` },
        { method: 'GET', path: (id) => `/api/v1/snapshots/${id}?include_payload=true&unknown=1` },
        { method: 'DELETE', path: (id) => `/api/v1/snapshots/${id}` },
        { method: 'POST', path: (id) => `/api/v1/snapshots/${id}/undelete` },
        { method: 'GET', path: (id) => `/api/v1/snapshots/${id}/export` },
        { method: 'POST', path: () => '/api/v1/restore/preview', bodies: previewBodies },
        { method: 'POST', path: () => '/api/v1/restore/start', bodies: startBodies },
      ],
    },
    {
      kind: 'restore job',
      code: 'ErrRestoreJobNotFound',
      ids: () => [active.jobId],
      routes: [
        { method: 'GET', path: (id) => `/api/v1/restore/${id}` },
        { method: 'POST', path: (id) => `/api/v1/restore/${id}/cancel` },
      ],
    },
    {
      kind: 'subscription',
      code: 'ErrSubscriptionNotFound',
      ids: () => [active.subscriptionId, inactive.subscriptionId],
      routes: [
        { method: 'GET', path: (id) => `/api/v1/subscriptions/${id}` },
        { method: 'POST', path: (id) => `/api/v1/subscriptions/${id}/change-plan`, bodies: changePlanBodies },
        { method: 'POST', path: (id) => `/api/v1/subscriptions/${id}/cancel` },
        { method: 'POST', path: (id) => `/subscriptions/${id}/cancel` },
        { method: 'POST', path: (id) => `/api/v1/subscriptions/${id}/uncancel` },
        { method: 'GET', path: (id) => `/api/v1/subscriptions/${id}/payments` },
        { method: 'DELETE', path: (id) => `/api/v1/subscriptions/${id}/pending-downgrade` },
      ],
    },
  ];

  it.each(RESOURCES.map((resource) => [resource.kind, resource] as const))(
    'a %s of a guild the caller cannot manage is answered as a missing one, on every route and body',
    async (_kind, resource) => {
      for (const route of resource.routes) {
        const bodies = route.bodies ?? [() => undefined];
        const missing = await answer('member', route.method, route.path(uuidv7()), bodies[0](uuidv7()));
        expect([route.method, route.path(':id'), missing]).toEqual([
          route.method,
          route.path(':id'),
          expect.objectContaining({ status: 404, code: resource.code }),
        ]);
        const probes: Parameters<typeof expectAllAnswer>[1] = [];
        for (const who of ['member', 'stranger'] as const) {
          for (const id of [...resource.ids(), uuidv7(), MALFORMED]) {
            for (const body of bodies) probes.push([who, route.method, route.path(id), body(id)]);
          }
        }
        await expectAllAnswer(missing, probes);
      }
    },
  );

  it('the resources exist, and a manager is told what is wrong with a request', async () => {
    expect(await answer('admin', 'GET', `/api/v1/snapshots/${active.snapshotId}`)).toMatchObject({
      status: 200,
      id: active.snapshotId,
    });
    expect(await answer('admin', 'GET', `/api/v1/restore/${active.jobId}`)).toMatchObject({
      status: 200,
      id: active.jobId,
    });
    expect(await answer('admin', 'GET', `/api/v1/subscriptions/${active.subscriptionId}`)).toMatchObject({
      status: 200,
      id: active.subscriptionId,
    });
    for (const [method, path, body] of [
      ['GET', `/api/v1/snapshots/${active.snapshotId}?include_payload=true&unknown=1`, undefined],
      ['POST', '/api/v1/restore/preview', previewBodies[1](active.snapshotId)],
      ['POST', '/api/v1/restore/start', startBodies[1](active.snapshotId)],
      ['POST', `/api/v1/subscriptions/${active.subscriptionId}/change-plan`, changePlanBodies[1]('')],
    ] as const) {
      expect([method, path, await answer('owner', method, path, body)]).toEqual([
        method,
        path,
        expect.objectContaining({ status: 400, code: 'ErrValidation' }),
      ]);
    }
    // The owner still manages the guild the bot has left: they alone hear it is inactive.
    expect(await answer('owner', 'GET', `/api/v1/snapshots/${inactive.snapshotId}`)).toMatchObject({
      status: 409,
      code: 'ErrGuildInactive',
    });
  });

  it('the payer rule: a manager who does not pay is refused with 403; whoever cannot manage sees no subscription', async () => {
    const path = `/api/v1/subscriptions/${active.subscriptionId}`;
    expect(await answer('admin', 'GET', path)).toMatchObject({ status: 200, id: active.subscriptionId });
    for (const [action, body] of [
      ['cancel', undefined],
      ['uncancel', undefined],
      ['change-plan', { new_plan_code: 'ENTERPRISE' }],
    ] as const) {
      expect([action, await answer('admin', 'POST', `${path}/${action}`, body)]).toEqual([
        action,
        expect.objectContaining({ status: 403, code: 'ErrNotPayer' }),
      ]);
      expect([action, await answer('member', 'POST', `${path}/${action}`, body)]).toEqual([
        action,
        await answer('member', 'POST', `/api/v1/subscriptions/${uuidv7()}/${action}`, body),
      ]);
    }
    const drop = `${path}/pending-downgrade`;
    expect(await answer('admin', 'DELETE', drop)).toMatchObject({ status: 403, code: 'ErrNotPayer' });
    expect(await answer('member', 'DELETE', drop)).toEqual(
      await answer('member', 'DELETE', `/api/v1/subscriptions/${uuidv7()}/pending-downgrade`),
    );
    // Another manager reads the payment history as they read the subscription.
    expect(await answer('admin', 'GET', `${path}/payments`)).toMatchObject({ status: 200 });
    // Nothing the refused callers sent changed the subscription.
    expect(await answer('owner', 'GET', path)).toMatchObject({
      status: 200,
      plan: 'PRO',
      cancel_at_period_end: false,
    });
  });
});
