import {
  type DomainEvent,
  type Entitlements,
  INTERNAL_TOKEN_HEADER,
  type PlanDefinition,
  RESTORE_SCOPES,
} from '@lib/contracts';
import { EntitlementsClient, EntitlementsInvalidationListener } from '@lib/entitlements';
import type { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { type AppProcess, startApp } from '../support/app-process';
import { BillingEventStream, SubscriptionScenario } from '../support/billing-events';
import { openDataSource } from '../support/database';
import { testKafka } from '../support/test-kafka';
import { waitFor } from '../support/wait';
import { signInternalToken, testTokenCodec } from '../support/internal-tokens';

interface LicenseRow {
  plan_code: string;
  expires_at: Date | null;
  subscription_id: string | null;
}

interface OutboundEvent {
  event_type: string;
  payload: Record<string, unknown>;
}

/** Licensing follows billing through Kafka and answers entitlements (docs/behaviour.md §3.3, §6, §8). */
describe('licensing', () => {
  let licensing: AppProcess;
  let dataSource: DataSource;
  let billing: BillingEventStream;
  const codec = testTokenCodec('recovery');

  beforeAll(async () => {
    dataSource = await openDataSource();
    billing = new BillingEventStream();
    licensing = await startApp('licensing');
  });

  afterAll(async () => {
    await licensing?.stop();
    await billing?.close();
    await dataSource?.destroy();
  });

  async function license(guildId: string): Promise<LicenseRow | undefined> {
    const [row] = await dataSource.query(
      `SELECT p.code AS plan_code, l.expires_at, l.subscription_id
         FROM licensing.licenses l JOIN licensing.plans p ON p.id = l.plan_id
        WHERE l.guild_id = $1`,
      [guildId],
    );
    return row as LicenseRow | undefined;
  }

  async function outbound(guildId: string): Promise<OutboundEvent[]> {
    const rows: { envelope: DomainEvent }[] = await dataSource.query(
      `SELECT envelope FROM licensing.outbox WHERE message_key = $1 ORDER BY seq`,
      [guildId],
    );
    return rows.map(({ envelope }) => ({
      event_type: envelope.type,
      payload: envelope.payload,
    }));
  }

  async function processed(
    eventIds: string[],
  ): Promise<{ event_id: string; status: string; error: string }[]> {
    return dataSource.query(
      `SELECT event_id, status, error FROM licensing.processed_events
        WHERE consumer = 'license' AND event_id = ANY($1::text[])`,
      [eventIds],
    );
  }

  /** Publishes, then waits until the consumer has recorded every one of the events. */
  async function deliver(...events: DomainEvent[]): Promise<void> {
    await billing.publish(...events);
    const ids = [...new Set(events.map((event) => event.id))];
    await waitFor(
      `licensing to consume ${ids.length} event(s)`,
      async () => (await processed(ids)).length === ids.length,
    );
  }

  async function entitlements(guildId: string, token?: string) {
    return fetch(`${licensing.url}/internal/v1/guilds/${guildId}/entitlements`, {
      headers: {
        [INTERNAL_TOKEN_HEADER]:
          token ?? (await signInternalToken({ kind: 'service', service: 'recovery' }, 'licensing')),
      },
    });
  }

  it('upgrades FREE to the plan of SubscriptionStarted once, however often the event is redelivered', async () => {
    const subscription = new SubscriptionScenario();
    const started = subscription.started('PRO');
    await deliver(started, started, started);
    await billing.publish(started);

    expect(await license(subscription.guildId)).toEqual({
      plan_code: 'PRO',
      expires_at: subscription.periodEnd,
      subscription_id: subscription.subscriptionId,
    });
    const events = await outbound(subscription.guildId);
    expect(events).toEqual([
      {
        event_type: 'LicenseUpgraded',
        payload: expect.objectContaining({
          guild_id: subscription.guildId,
          old_plan_code: 'FREE',
          new_plan_code: 'PRO',
          expires_at: subscription.periodEnd.toISOString(),
          features: [
            'RECOVERY_RESTORE',
            'RECOVERY_SNAPSHOT_MANUAL',
            'RECOVERY_SNAPSHOT_SCHEDULED',
            'RECOVERY_LIVE_SYNC',
          ],
          cause: 'SubscriptionStarted',
        }),
      },
    ]);
    expect(await processed([started.id])).toEqual([{ event_id: started.id, status: 'done', error: null }]);
  });

  it('follows an upgrade, a renewal, a downgrade from ENTERPRISE and the end of the subscription', async () => {
    const subscription = new SubscriptionScenario();
    await deliver(subscription.started('PRO'), subscription.upgraded('PRO', 'ENTERPRISE'));
    expect((await license(subscription.guildId))?.plan_code).toBe('ENTERPRISE');

    const renewal = subscription.renewed('ENTERPRISE', 2);
    await deliver(renewal);
    expect(await license(subscription.guildId)).toMatchObject({
      plan_code: 'ENTERPRISE',
      expires_at: subscription.periodEnd,
    });

    await deliver(subscription.downgraded('ENTERPRISE', 'PRO'));
    expect((await license(subscription.guildId))?.plan_code).toBe('PRO');
    await deliver(subscription.canceledAtPeriodEnd('PRO'));
    expect(await license(subscription.guildId)).toMatchObject({ plan_code: 'FREE', expires_at: null });

    const events = await outbound(subscription.guildId);
    expect(events.map((e) => [e.event_type, e.payload.old_plan_code, e.payload.new_plan_code])).toEqual([
      ['LicenseUpgraded', 'FREE', 'PRO'],
      ['LicenseUpgraded', 'PRO', 'ENTERPRISE'],
      ['LicenseDowngraded', 'ENTERPRISE', 'PRO'],
      ['LicenseDowngraded', 'PRO', 'FREE'],
    ]);
    // Leaving ENTERPRISE takes AntiNuke auto-action away; recovery switches it off on this event.
    expect(events[2].payload).toMatchObject({
      removed_features: ['ANTINUKE_DETECT', 'ANTINUKE_AUTO_ACTION'],
      cause: 'PlanDowngraded',
    });
    expect(events[3].payload).toMatchObject({ cause: 'SubscriptionCanceledPeriodEnd', expires_at: null });
  });

  it('does not resurrect a cancelled plan when an older PlanUpgraded is redelivered after the cancel', async () => {
    const subscription = new SubscriptionScenario();
    const started = subscription.started('PRO');
    const upgraded = subscription.upgraded('PRO', 'ENTERPRISE');
    const canceled = subscription.canceledAtPeriodEnd('ENTERPRISE');
    await deliver(started, upgraded, canceled);
    expect((await license(subscription.guildId))?.plan_code).toBe('FREE');
    const before = await outbound(subscription.guildId);

    // A second relay or a redelivery brings old events back, alone and in reverse order.
    await deliver({ ...upgraded, id: uuidv7() }, { ...started, id: uuidv7() });

    expect(await license(subscription.guildId)).toMatchObject({ plan_code: 'FREE', expires_at: null });
    expect(await outbound(subscription.guildId)).toEqual(before);
  });

  it('converges on the newest state when one guild’s events arrive out of order', async () => {
    const subscription = new SubscriptionScenario();
    const started = subscription.started('PRO');
    const upgraded = subscription.upgraded('PRO', 'ENTERPRISE');
    await deliver(upgraded);
    await deliver(started);
    expect((await license(subscription.guildId))?.plan_code).toBe('ENTERPRISE');
    expect((await outbound(subscription.guildId)).map((e) => e.event_type)).toEqual(['LicenseUpgraded']);
  });

  it('sets aside an event with a missing or unknown plan code without blocking the guild’s partition', async () => {
    const subscription = new SubscriptionScenario();
    const valid = subscription.started('PRO');
    const unknownPlan = subscription.event('PlanUpgraded', {
      ...subscription.upgraded('PRO', 'ENTERPRISE').payload,
      new_plan_code: 'GOLD',
    });
    const { plan_code: _missing, ...withoutPlan } = subscription.renewed('PRO', 2).payload;
    const missingPlan = subscription.event('PaymentSucceeded', withoutPlan);
    const after = subscription.upgraded('PRO', 'ENTERPRISE');

    await deliver(valid, unknownPlan, missingPlan, after);

    const records = await processed([unknownPlan.id, missingPlan.id, after.id]);
    expect(records).toEqual(
      expect.arrayContaining([
        {
          event_id: unknownPlan.id,
          status: 'failed',
          error: expect.stringContaining('plan code must be one of FREE, PRO, ENTERPRISE'),
        },
        { event_id: missingPlan.id, status: 'failed', error: expect.stringContaining('plan code') },
        { event_id: after.id, status: 'done', error: null },
      ]),
    );
    expect((await license(subscription.guildId))?.plan_code).toBe('ENTERPRISE');
    expect(licensing.output()).toContain(unknownPlan.id);
    const metrics = await (await fetch(`${licensing.url}/metrics`)).text();
    expect(metrics).toMatch(/events_failed_total\{consumer="license",event_type="PlanUpgraded"\} [1-9]/);
  });

  it('keeps a renewing licence through its grace; a scheduled cancel ends it at period end, an uncancel gives it back', async () => {
    const subscription = new SubscriptionScenario();
    // The period ended a minute ago; the renewal (or its retries) is still to come.
    subscription.periodEnd = new Date(Date.now() - 60_000);
    subscription.graceUntil = new Date(Date.now() + 6 * 86_400_000);
    const plan = async () => (await (await entitlements(subscription.guildId)).json()) as Entitlements;

    await deliver(subscription.started('PRO'));
    expect(await plan()).toMatchObject({
      plan_code: 'PRO',
      status: 'active',
      expires_at: subscription.graceUntil.toISOString(),
    });
    expect(await license(subscription.guildId)).toMatchObject({ expires_at: subscription.periodEnd });

    await deliver(subscription.canceled('PRO'));
    expect(await plan()).toMatchObject({ plan_code: 'FREE', licensed_plan_code: 'PRO', status: 'expired' });

    await deliver(subscription.uncanceled('PRO'));
    expect(await plan()).toMatchObject({ plan_code: 'PRO', status: 'active' });

    // Only the end of the subscription moves the plan, with the event recovery and notifier act on.
    await deliver(subscription.canceledAtPeriodEnd('PRO'));
    expect(await plan()).toMatchObject({ plan_code: 'FREE', status: 'active', expires_at: null });
    expect((await outbound(subscription.guildId)).map((e) => [e.event_type, e.payload.cause])).toEqual([
      ['LicenseUpgraded', 'SubscriptionStarted'],
      ['LicenseDowngraded', 'SubscriptionCanceledPeriodEnd'],
    ]);
  });

  it("reserves a guild's licence for billing, once, and keeps its id through the subscription", async () => {
    const subscription = new SubscriptionScenario();
    const reserve = async (service: 'billing' | 'recovery') =>
      fetch(`${licensing.url}/internal/v1/guilds/${subscription.guildId}/license`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          [INTERNAL_TOKEN_HEADER]: await signInternalToken({ kind: 'service', service }, 'licensing'),
        },
        body: '{}',
      });
    const first = await reserve('billing');
    expect(first.status).toBe(200);
    const { license_id } = (await first.json()) as { license_id: string };
    expect(license_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await (await reserve('billing')).json()).toEqual({ guild_id: subscription.guildId, license_id });
    expect((await reserve('recovery')).status).toBe(403);
    expect(await (await entitlements(subscription.guildId)).json()).toMatchObject({
      license_id,
      plan_code: 'FREE',
    });

    await deliver(subscription.started('PRO'));
    const [upgraded] = await outbound(subscription.guildId);
    expect(upgraded).toMatchObject({
      event_type: 'LicenseUpgraded',
      payload: { license_id, old_plan_code: 'FREE' },
    });
    expect(await (await entitlements(subscription.guildId)).json()).toMatchObject({
      license_id,
      plan_code: 'PRO',
    });
  });

  describe('entitlements API', () => {
    it('serves FREE to a guild without a licence and the paid plan to a licensed one', async () => {
      const unknownGuild = uuidv7();
      const free = (await (await entitlements(unknownGuild)).json()) as Entitlements;
      expect(free).toEqual({
        guild_id: unknownGuild,
        license_id: null,
        plan_code: 'FREE',
        licensed_plan_code: 'FREE',
        status: 'active',
        features: [],
        restore_scopes: [],
        limits: {
          snapshot_manual_max: 0,
          scheduled_snapshot_retention_days: null,
          audit_log_retention_days: 30,
          snapshot_image_bytes: 0,
        },
        expires_at: null,
      });

      const subscription = new SubscriptionScenario();
      await deliver(subscription.started('ENTERPRISE'));
      const paid = (await (await entitlements(subscription.guildId)).json()) as Entitlements;
      expect(paid).toMatchObject({
        plan_code: 'ENTERPRISE',
        status: 'active',
        limits: {
          snapshot_manual_max: 3,
          scheduled_snapshot_retention_days: 30,
          audit_log_retention_days: 365,
        },
        expires_at: subscription.periodEnd.toISOString(),
      });
      expect(paid.features).toContain('ANTINUKE_AUTO_ACTION');
      expect(paid.restore_scopes).toEqual([...RESTORE_SCOPES]);
    });

    it('counts a paid licence past expires_at as FREE at once, before any job has run', async () => {
      const subscription = new SubscriptionScenario();
      await deliver(subscription.started('PRO'));
      await dataSource.query(
        `UPDATE licensing.licenses SET expires_at = now() - interval '1 second' WHERE guild_id = $1`,
        [subscription.guildId],
      );
      const body = (await (await entitlements(subscription.guildId)).json()) as Entitlements;
      expect(body).toMatchObject({
        plan_code: 'FREE',
        licensed_plan_code: 'PRO',
        status: 'expired',
        features: [],
        restore_scopes: [],
        limits: { snapshot_manual_max: 0, audit_log_retention_days: 30 },
      });
    });

    it('lists the plans with prices, features and limits', async () => {
      const token = await signInternalToken({ kind: 'service', service: 'billing' }, 'licensing');
      const response = await fetch(`${licensing.url}/internal/v1/plans`, {
        headers: { [INTERNAL_TOKEN_HEADER]: token },
      });
      const plans = (await response.json()) as { code: string; rank: number; price_krw: number }[];
      expect(plans.map(({ code, rank, price_krw }) => ({ code, rank, price_krw }))).toEqual([
        { code: 'FREE', rank: 0, price_krw: 0 },
        { code: 'PRO', rank: 1, price_krw: 9900 },
        { code: 'ENTERPRISE', rank: 2, price_krw: 29900 },
      ]);
    });

    it("lists members' roles and bans among PRO's and ENTERPRISE's restore scopes, and none on FREE", async () => {
      const token = await signInternalToken({ kind: 'service', service: 'recovery' }, 'licensing');
      const response = await fetch(`${licensing.url}/internal/v1/plans`, {
        headers: { [INTERNAL_TOKEN_HEADER]: token },
      });
      const plans = (await response.json()) as PlanDefinition[];
      expect(plans.map(({ code, restore_scopes }) => [code, restore_scopes])).toEqual([
        ['FREE', []],
        ['PRO', [...RESTORE_SCOPES]],
        ['ENTERPRISE', [...RESTORE_SCOPES]],
      ]);
      for (const plan of plans.filter(({ code }) => code !== 'FREE')) {
        expect(plan.restore_scopes).toEqual(expect.arrayContaining(['member_roles', 'bans']));
      }
    });

    it('shows any signed-in user the plans side by side on the public route, and no one else', async () => {
      const token = await signInternalToken(
        { kind: 'user', user_id: uuidv7(), platform_user_id: '1', session_id: 's' },
        'licensing',
      );
      const response = await fetch(`${licensing.url}/api/v1/plans`, {
        headers: { [INTERNAL_TOKEN_HEADER]: token },
      });
      expect(response.status).toBe(200);
      const { items } = (await response.json()) as {
        items: { code: string; price_krw: number; features: string[]; limits: Record<string, unknown> }[];
      };
      expect(items.map(({ code, price_krw }) => [code, price_krw])).toEqual([
        ['FREE', 0],
        ['PRO', 9900],
        ['ENTERPRISE', 29900],
      ]);
      const enterprise = items.find((plan) => plan.code === 'ENTERPRISE')!;
      expect(enterprise.features).toEqual(expect.arrayContaining(['ANTINUKE_DETECT', 'RECOVERY_LIVE_SYNC']));
      expect(enterprise.limits).toHaveProperty('scheduled_snapshot_retention_days');
      expect(items.map(({ code, limits }) => [code, limits.audit_log_retention_days])).toEqual([
        ['FREE', 30],
        ['PRO', 90],
        ['ENTERPRISE', 365],
      ]);
      expect(items.map(({ code, limits }) => [code, limits.snapshot_image_bytes])).toEqual([
        ['FREE', 0],
        ['PRO', 100 * 1024 ** 2],
        ['ENTERPRISE', 1024 ** 3],
      ]);
      expect(
        items.map((plan) => [
          plan.code,
          (plan as unknown as PlanDefinition).restore_scopes.includes('emojis'),
        ]),
      ).toEqual([
        ['FREE', false],
        ['PRO', true],
        ['ENTERPRISE', true],
      ]);
      expect((await fetch(`${licensing.url}/api/v1/plans`)).status).toBe(401);
    });

    it('answers only services, and bad ids with a problem body', async () => {
      const user = await signInternalToken(
        { kind: 'user', user_id: uuidv7(), platform_user_id: '1', session_id: 's' },
        'licensing',
      );
      const asUser = await entitlements(uuidv7(), user);
      expect(asUser.status).toBe(403);
      const anonymous = await fetch(`${licensing.url}/internal/v1/guilds/${uuidv7()}/entitlements`);
      expect(anonymous.status).toBe(401);
      const badId = await entitlements("1' OR '1'='1");
      expect(badId.status).toBe(400);
      expect(badId.headers.get('content-type')).toContain('application/problem+json');
      expect(await badId.json()).toMatchObject({ status: 400, code: 'ErrValidation' });
    });
  });

  describe('entitlements client', () => {
    const kafka = testKafka('test-entitlements');
    const listeners: EntitlementsInvalidationListener[] = [];

    afterAll(async () => {
      await Promise.all(listeners.map((listener) => listener.stop()));
    });

    function client(): EntitlementsClient {
      return new EntitlementsClient({ licensingUrl: licensing.url, codec });
    }

    it('caches answers, and every replica sees an upgrade well within the cache lifetime', async () => {
      const subscription = new SubscriptionScenario();
      const replicas = [client(), client()];
      for (const replica of replicas) {
        const listener = new EntitlementsInvalidationListener(kafka, replica, 'recovery');
        listeners.push(listener);
        await listener.start();
      }
      const withoutListener = client();
      for (const replica of [...replicas, withoutListener]) {
        expect((await replica.get(subscription.guildId)).plan_code).toBe('FREE');
      }

      const upgradedAt = Date.now();
      await deliver(subscription.started('PRO'));
      await Promise.all(
        replicas.map((replica) =>
          waitFor(
            'the replica to see PRO',
            async () => (await replica.get(subscription.guildId)).plan_code === 'PRO',
            {
              timeoutMs: 30_000,
            },
          ),
        ),
      );
      expect(Date.now() - upgradedAt).toBeLessThan(60_000);
      // The cache is real: a client that hears no events keeps its answer for the lifetime.
      expect((await withoutListener.get(subscription.guildId)).plan_code).toBe('FREE');
    });

    it('drops a cached answer once per licence change, then moves on to the next change', async () => {
      const replica = client();
      const dropped: string[] = [];
      const invalidate = replica.invalidate.bind(replica);
      replica.invalidate = (guildId) => {
        dropped.push(guildId);
        invalidate(guildId);
      };
      const listener = new EntitlementsInvalidationListener(kafka, replica, 'recovery');
      listeners.push(listener);
      await listener.start();
      const first = new SubscriptionScenario();
      const second = new SubscriptionScenario();

      await deliver(first.started('PRO'));
      await waitFor('the first change heard', () => dropped.includes(first.guildId), { timeoutMs: 30_000 });
      await deliver(second.started('PRO'));
      await waitFor('the second change heard', () => dropped.includes(second.guildId), {
        timeoutMs: 30_000,
      });
      // A listener that handled its batch without moving past it would have been handed the first
      // change again and again while the second was on its way.
      expect(dropped.filter((guildId) => guildId === first.guildId)).toEqual([first.guildId]);
      expect(dropped.filter((guildId) => guildId === second.guildId)).toEqual([second.guildId]);
    });

    it('refuses a feature the plan lacks with ErrPermissionDenied naming the feature and the plan that has it', async () => {
      await expect(client().requireFeature(uuidv7(), 'RECOVERY_RESTORE')).rejects.toMatchObject({
        code: 'ErrPermissionDenied',
        status: 403,
        message:
          "This needs RECOVERY_RESTORE, which the guild's FREE plan does not include. Upgrade to Pro to use it.",
        extensions: { required_feature: 'RECOVERY_RESTORE', plan_code: 'FREE', required_plan: 'PRO' },
      });
    });

    it("lets PRO restore members' roles and bans, and tells FREE that restores begin with Pro", async () => {
      const subscription = new SubscriptionScenario();
      await deliver(subscription.started('PRO'));
      const entitlements = await client().requireRestoreScopes(subscription.guildId, [
        'member_roles',
        'bans',
      ]);
      expect(entitlements).toMatchObject({ plan_code: 'PRO', restore_scopes: [...RESTORE_SCOPES] });

      await expect(client().requireRestoreScopes(uuidv7(), ['member_roles', 'bans'])).rejects.toMatchObject({
        code: 'ErrPermissionDenied',
        status: 403,
        extensions: { required_feature: 'RECOVERY_RESTORE', plan_code: 'FREE', required_plan: 'PRO' },
      });
    });

    it('reports licensing being unreachable as a 503 problem, not as FREE', async () => {
      const offline = new EntitlementsClient({
        licensingUrl: 'http://127.0.0.1:1',
        codec: testTokenCodec('billing'),
      });
      await expect(offline.get(uuidv7())).rejects.toMatchObject({
        code: 'ErrLicensingUnavailable',
        status: 503,
      });
    });
  });
});
