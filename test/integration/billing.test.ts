import { type DomainEvent, type RoutedProviderEvent, INTERNAL_TOKEN_HEADER } from '@lib/contracts';
import { SDK_SCRIPT_PATH } from '@lib/sandbox';
import type { DataSource, EntityManager } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { BillingKeyCipher } from '../../apps/billing/src/billing-keys/billing-key-cipher';
import { runScript } from '../support/app-process';
import { BillingStack } from '../support/billing-stack';
import { openDataSource } from '../support/database';
import { ADMIN, MEMBER, OWNER } from '../support/restore-scenario';
import { waitFor } from '../support/wait';

interface SubscriptionRow {
  id: string;
  status: string;
  plan_code: string;
  license_id: string | null;
  billing_key_id: string;
  payer_user_id: string;
  payer_platform_user_id: string | null;
  guild_name: string;
  cycle_count: number;
  current_period_start: Date | null;
  current_period_end: Date | null;
  next_billing_at: Date | null;
  cancel_at_period_end: boolean;
  pending_downgrade_to: string | null;
  canceled_at: Date | null;
  cancel_reason: string | null;
  updated_at: Date;
}

interface AttemptRow {
  order_id: string;
  status: string;
  cycle: number;
  retry_number: number;
  amount_krw: number;
  failure_code: string | null;
}

const DAY_MS = 86_400_000;

/** Billing against real Postgres and Kafka, recovery and licensing, and the fake provider. */
describe('billing', () => {
  const stack = new BillingStack();
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = await openDataSource();
    await stack.start();
  }, 120_000);

  afterAll(async () => {
    await stack.stop();
    await dataSource?.destroy();
  });

  const owner = () => stack.user(OWNER);

  /** A checkout `prepare` started for `user` (on `app`, billing by default): its id, to confirm once. */
  async function checkoutId(
    user: ReturnType<typeof owner>,
    guildId: string,
    plan = 'PRO',
    app = stack.billing,
  ): Promise<string> {
    const prepared = await stack.call(
      app,
      'GET',
      `/api/v1/billing/prepare?guild_id=${guildId}&plan=${plan}`,
      user,
    );
    if (prepared.status !== 200) throw new Error(`prepare failed: ${JSON.stringify(prepared)}`);
    return prepared.body.checkout_id as string;
  }

  async function subscription(id: string): Promise<SubscriptionRow> {
    const [row] = await dataSource.query<SubscriptionRow[]>(
      `SELECT * FROM billing.subscriptions WHERE id = $1`,
      [id],
    );
    return row;
  }

  async function attempts(subscriptionId: string): Promise<AttemptRow[]> {
    return dataSource.query<AttemptRow[]>(
      `SELECT order_id, status, cycle, retry_number, amount_krw, failure_code FROM billing.payment_attempts
        WHERE subscription_id = $1 ORDER BY cycle, retry_number`,
      [subscriptionId],
    );
  }

  async function events(subscriptionId: string): Promise<DomainEvent[]> {
    const rows = await dataSource.query<{ envelope: DomainEvent }[]>(
      `SELECT envelope FROM billing.outbox WHERE envelope->>'aggregate_id' = $1 ORDER BY seq`,
      [subscriptionId],
    );
    return rows.map((row) => row.envelope);
  }

  const types = async (subscriptionId: string) => (await events(subscriptionId)).map((event) => event.type);

  const change = (user: ReturnType<typeof owner>, id: string, plan: string) =>
    stack.callBilling('POST', `/api/v1/subscriptions/${id}/change-plan`, user, { new_plan_code: plan });

  /** An active PRO subscription of a new guild, paid by `payer`. */
  async function activeSubscription(payer = owner(), plan: 'PRO' | 'ENTERPRISE' = 'PRO') {
    const guildName = `Guild ${uuidv7().slice(-6)}`;
    const { guildId } = await stack.registeredGuild(guildName);
    const confirmed = await stack.subscribe(payer, guildId, plan);
    expect(confirmed.status).toBe(200);
    return { guildId, guildName, payer, id: confirmed.body.id as string };
  }

  async function route(event: RoutedProviderEvent) {
    return stack.callBilling(
      'POST',
      '/internal/v1/provider-events',
      { kind: 'service', service: 'webhook-intake' },
      event,
    );
  }

  /**
   * Moves a subscription's clock back: its current period ended `agoMs` ago and the renewal is due,
   * or with `chargeInMs`, due that much later (the renewal's jitter). Returns the shift in ms.
   */
  async function endPeriod(id: string, agoMs = 1_000, chargeInMs: number | null = null): Promise<number> {
    // Shifts the whole paid history so the current period ended `agoMs` ago.
    const [[shifted]] = await dataSource.query<[{ by_ms: number }[], number]>(
      `UPDATE billing.subscriptions s
          SET billing_anchor_at = s.billing_anchor_at - shift.by,
              current_period_start = s.current_period_start - shift.by,
              current_period_end = s.current_period_end - shift.by,
              next_billing_at = CASE WHEN $3::float8 IS NULL THEN s.current_period_end - shift.by
                                     ELSE now() + make_interval(secs => $3::float8 / 1000.0) END
         FROM (SELECT id, current_period_end - now() + make_interval(secs => $2 / 1000.0) AS by
                 FROM billing.subscriptions WHERE id = $1) shift
        WHERE s.id = shift.id
        RETURNING extract(epoch FROM shift.by) * 1000 AS by_ms`,
      [id, agoMs, chargeInMs],
    );
    return Number(shifted.by_ms);
  }

  /** The guild's licence as licensing stores it. */
  async function licence(guildId: string) {
    const [row] = await dataSource.query<
      { id: string; code: string; expires_at: Date | null; grace_until: Date | null }[]
    >(
      `SELECT l.id, p.code, l.expires_at, l.grace_until
         FROM licensing.licenses l JOIN licensing.plans p ON p.id = l.plan_id WHERE l.guild_id = $1`,
      [guildId],
    );
    return row;
  }

  /** What licensing answers billing and recovery about the guild right now (no cache). */
  async function entitlements(guildId: string) {
    const answer = await stack.call(stack.licensing, 'GET', `/internal/v1/guilds/${guildId}/entitlements`, {
      kind: 'service',
      service: 'billing',
    });
    return answer.body as { plan_code: string; status: string; license_id: string | null };
  }

  /** Licensing's events about the guild, oldest first. */
  async function licensingEvents(guildId: string) {
    const rows = await dataSource.query<{ envelope: DomainEvent }[]>(
      `SELECT envelope FROM licensing.outbox WHERE message_key = $1 ORDER BY seq`,
      [guildId],
    );
    return rows.map(({ envelope }) => envelope);
  }

  /**
   * A month goes by for both services: the subscription's period ends as `endPeriod` makes it, and
   * the licence licensing holds moves back by the same amount. Waits for licensing to follow first.
   */
  async function monthGoesBy(id: string, guildId: string, agoMs: number, chargeInMs: number | null = null) {
    const { current_period_end } = await subscription(id);
    await waitFor(
      'licensing to follow the subscription',
      async () => (await licence(guildId))?.expires_at?.getTime() === current_period_end!.getTime(),
    );
    const byMs = await endPeriod(id, agoMs, chargeInMs);
    await dataSource.query(
      `UPDATE licensing.licenses
          SET expires_at = expires_at - make_interval(secs => $2 / 1000.0),
              grace_until = grace_until - make_interval(secs => $2 / 1000.0)
        WHERE guild_id = $1`,
      [guildId, byMs],
    );
  }

  describe('prepare', () => {
    it('gives the widget what it needs for a guild the user administers', async () => {
      const { guildId } = await stack.registeredGuild('Prepare Guild');
      const user = owner();
      const prepared = await stack.callBilling(
        'GET',
        `/api/v1/billing/prepare?guild_id=${guildId}&plan=ENTERPRISE`,
        user,
      );
      expect(prepared.status).toBe(200);
      expect(prepared.body).toEqual({
        checkout_id: expect.stringMatching(
          /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
        ),
        checkout_expires_at: expect.any(String),
        customer_key: `user_${user.user_id}`,
        order_name: 'GuildKeeper Enterprise - Prepare Guild',
        amount: 29_900,
        provider_client_key: stack.provider.clientKey,
        provider_sdk_url: `${stack.provider.url}${SDK_SCRIPT_PATH}`,
        guild_id: guildId,
        guild_name: 'Prepare Guild',
        plan: 'ENTERPRISE',
        payer_subscriptions: expect.any(Number),
        saved_card: null,
      });
      // Confirmable for CHECKOUT_TTL_MINUTES (30) from now, by the database's clock.
      const [row] = await dataSource.query<
        { user_id: string; guild_id: string; plan_code: string; ttl_s: number }[]
      >(
        `SELECT user_id, guild_id, plan_code, extract(epoch FROM expires_at - created_at)::int AS ttl_s
           FROM billing.checkouts WHERE id = $1`,
        [prepared.body.checkout_id],
      );
      expect(row).toEqual({ user_id: user.user_id, guild_id: guildId, plan_code: 'ENTERPRISE', ttl_s: 1800 });
      expect(Date.parse(prepared.body.checkout_expires_at as string)).toBeGreaterThan(
        Date.now() + 29 * 60_000,
      );
    });

    it('refuses members without Manage Server, FREE, unknown plans and bad ids with a problem body', async () => {
      const { guildId } = await stack.registeredGuild('Refusing Guild');
      const member = await stack.callBilling(
        'GET',
        `/api/v1/billing/prepare?guild_id=${guildId}&plan=PRO`,
        stack.user(MEMBER),
      );
      expect(member).toMatchObject({ status: 403, body: { code: 'ErrForbidden' } });
      const free = await stack.callBilling(
        'GET',
        `/api/v1/billing/prepare?guild_id=${guildId}&plan=FREE`,
        owner(),
      );
      expect(free).toMatchObject({ status: 400, body: { code: 'ErrValidation' } });
      const unknown = await stack.callBilling(
        'GET',
        `/api/v1/billing/prepare?guild_id=${guildId}&plan=GOLD`,
        owner(),
      );
      expect(unknown).toMatchObject({ status: 400, body: { code: 'ErrValidation' } });
      expect(unknown.contentType).toContain('application/problem+json');
      // An id that names no guild names none the caller manages: refused before validation.
      const badId = await stack.callBilling('GET', `/api/v1/billing/prepare?guild_id=nope&plan=PRO`, owner());
      expect(badId).toMatchObject({ status: 403, body: { code: 'ErrForbidden' } });
      const anonymous = await stack.callBilling(
        'GET',
        `/api/v1/billing/prepare?guild_id=${guildId}&plan=PRO`,
        null,
      );
      expect(anonymous).toMatchObject({ status: 401, body: { code: 'ErrUnauthenticated' } });
    });
  });

  describe('confirm', () => {
    it('issues and stores the key, charges cycle 1 once, activates, and licensing follows', async () => {
      const { guildId } = await stack.registeredGuild('Happy Guild');
      const user = owner();
      const before = Date.now();
      const confirmed = await stack.subscribe(user, guildId, 'PRO');
      expect(confirmed.status).toBe(200);
      const id = confirmed.body.id as string;
      expect(confirmed.body).toMatchObject({
        status: 'active',
        plan: 'PRO',
        cycle_count: 1,
        guild_id: guildId,
      });

      const row = await subscription(id);
      // The guild's licence, reserved with licensing at checkout, is named from the first event on.
      expect(row.license_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(row.license_id).toBe((await licence(guildId)).id);
      expect(row.current_period_start!.getTime()).toBeGreaterThanOrEqual(before - 1_000);
      const monthLater = new Date(row.current_period_start!);
      monthLater.setUTCMonth(monthLater.getUTCMonth() + 1);
      // Same day next month, or the month's last day when it has fewer days.
      expect(row.current_period_end!.getTime()).toBeLessThanOrEqual(monthLater.getTime());
      expect(row.current_period_end!.getTime()).toBeGreaterThan(monthLater.getTime() - 4 * DAY_MS);
      const jitter = row.next_billing_at!.getTime() - row.current_period_end!.getTime();
      expect(jitter).toBeGreaterThanOrEqual(0);
      expect(jitter).toBeLessThan(15 * 60_000);
      expect(confirmed.body.next_billing_at).toBe(row.next_billing_at!.toISOString());

      const orderId = `sub_${id}_001_r0`;
      expect(await attempts(id)).toEqual([
        {
          order_id: orderId,
          status: 'succeeded',
          cycle: 1,
          retry_number: 0,
          amount_krw: 9_900,
          failure_code: null,
        },
      ]);
      const charges = stack.provider.charges().filter((charge) => charge.orderId === orderId);
      expect(charges).toEqual([
        expect.objectContaining({
          amount: 9_900,
          idempotencyKey: orderId,
          status: 'DONE',
          customerKey: `user_${user.user_id}`,
        }),
      ]);
      expect(
        stack.provider
          .requestLog()
          .filter((r) => r.path.startsWith('/v1/'))
          .every((r) => r.authorization === 'ok'),
      ).toBe(true);

      const emitted = await events(id);
      expect(emitted.map((event) => event.type)).toEqual([
        'BillingKeyIssued',
        'SubscriptionStarted',
        'PaymentSucceeded',
      ]);
      expect(row).toMatchObject({
        payer_user_id: user.user_id,
        payer_platform_user_id: OWNER,
        guild_name: 'Happy Guild',
      });
      const started = emitted[1] as DomainEvent<'SubscriptionStarted'>;
      expect(started.payload).toEqual({
        subscription_id: id,
        license_id: row.license_id,
        guild_id: guildId,
        payer_user_id: user.user_id,
        payer_platform_user_id: OWNER,
        guild_name: 'Happy Guild',
        plan_code: 'PRO',
        amount_krw: 9_900,
        current_period_start: row.current_period_start!.toISOString(),
        current_period_end: row.current_period_end!.toISOString(),
        next_billing_at: row.next_billing_at!.toISOString(),
        // The last past_due retry (+5 days) and a day to settle it.
        grace_until: new Date(row.current_period_end!.getTime() + 6 * DAY_MS).toISOString(),
      });
      // Licensing orders a guild's events by the time of the state change.
      expect(started.occurred_at).toBe(row.updated_at.toISOString());
      expect(emitted[2].payload).toMatchObject({ order_id: orderId, cycle: 1, plan_code: 'PRO' });

      await waitFor('licensing to upgrade the guild', async () => {
        const [licence] = await dataSource.query<{ code: string; expires_at: Date }[]>(
          `SELECT p.code, l.expires_at FROM licensing.licenses l JOIN licensing.plans p ON p.id = l.plan_id
            WHERE l.guild_id = $1`,
          [guildId],
        );
        return licence?.code === 'PRO' && licence.expires_at.getTime() === row.current_period_end!.getTime();
      });
    });

    it('stores the billing key only encrypted: the raw column is useless without the key', async () => {
      const { id } = await activeSubscription();
      const [stored] = await dataSource.query<
        { billing_key_encrypted: Buffer; customer_key: string; card_last4: string }[]
      >(
        `SELECT k.billing_key_encrypted, k.customer_key, k.card_last4
           FROM billing.billing_keys k JOIN billing.subscriptions s ON s.billing_key_id = k.id WHERE s.id = $1`,
        [id],
      );
      const issued = stack.provider.billingKeys().find((key) => key.customerKey === stored.customer_key)!;
      expect(stored.billing_key_encrypted.includes(Buffer.from(issued.billingKey))).toBe(false);
      expect(stored.billing_key_encrypted.toString('latin1')).not.toContain(issued.billingKey);
      expect(stored.card_last4).toBe(issued.cardNumber.slice(-4));

      const right = new BillingKeyCipher(BillingKeyCipher.parseKey(process.env.BILLING_KEY_ENCRYPTION_KEY!));
      expect(right.decrypt(stored.billing_key_encrypted, stored.customer_key)).toBe(issued.billingKey);
      const wrong = new BillingKeyCipher(Buffer.alloc(32, 7));
      expect(() => wrong.decrypt(stored.billing_key_encrypted, stored.customer_key)).toThrow();
    });

    it('answers 400 and stores nothing when the provider refuses to issue the key', async () => {
      const { guildId } = await stack.registeredGuild('Bad Card Guild');
      const user = owner();
      const customerKey = `user_${user.user_id}`;
      const rejected = stack.provider.authorizeCard({
        customerKey,
        issueRejection: { code: 'INVALID_CARD_EXPIRATION' },
      });
      // The provider answers some card refusals with 403: still the card's problem, still 400.
      const forbidden = stack.provider.authorizeCard({
        customerKey,
        issueRejection: { code: 'REJECT_CARD_COMPANY', status: 403 },
      });
      const expired = stack.provider.authorizeCard({ customerKey });
      stack.provider.expireAuthKey(expired);
      for (const [authKey, code] of [
        [rejected, 'INVALID_CARD_EXPIRATION'],
        [forbidden, 'REJECT_CARD_COMPANY'],
        [expired, 'EXPIRED_AUTH_KEY'],
        ['never-issued', 'INVALID_AUTH_KEY'],
      ]) {
        const answer = await stack.callBilling('POST', '/api/v1/billing/confirm', user, {
          checkout_id: await checkoutId(user, guildId),
          auth_key: authKey,
          customer_key: customerKey,
          guild_id: guildId,
          plan_code: 'PRO',
        });
        expect(answer).toMatchObject({
          status: 400,
          body: { code: 'ErrCardAuthenticationFailed', provider_code: code },
        });
      }
      const rows = await dataSource.query(
        `SELECT (SELECT count(*) FROM billing.billing_keys WHERE user_id = $1)::int AS keys,
                (SELECT count(*) FROM billing.subscriptions WHERE guild_id = $2)::int AS subscriptions`,
        [user.user_id, guildId],
      );
      expect(rows).toEqual([{ keys: 0, subscriptions: 0 }]);
    });

    it('answers 400 and alerts operators when the provider refuses our own secret key (§4.11)', async () => {
      const misconfigured = await stack.startBilling({
        PROVIDER_SECRET_KEY: 'test_sk_not_ours',
        BILLING_JOBS_ENABLED: 'false',
      });
      try {
        const { guildId } = await stack.registeredGuild('Wrong Key Guild');
        const user = owner();
        const customerKey = `user_${user.user_id}`;
        const answer = await stack.call(misconfigured, 'POST', '/api/v1/billing/confirm', user, {
          checkout_id: await checkoutId(user, guildId, 'PRO', misconfigured),
          auth_key: stack.provider.authorizeCard({ customerKey }),
          customer_key: customerKey,
          guild_id: guildId,
          plan_code: 'PRO',
        });
        expect(answer).toMatchObject({
          status: 400,
          body: { code: 'ErrCardAuthenticationFailed', provider_code: 'UNAUTHORIZED_KEY' },
        });
        await waitFor('the operator alert', () =>
          misconfigured.output().includes('"alert":"provider_credentials_refused"'),
        );
        const rows = await dataSource.query(
          `SELECT (SELECT count(*) FROM billing.billing_keys WHERE user_id = $1)::int AS keys,
                  (SELECT count(*) FROM billing.subscriptions WHERE guild_id = $2)::int AS subscriptions`,
          [user.user_id, guildId],
        );
        expect(rows).toEqual([{ keys: 0, subscriptions: 0 }]);
      } finally {
        await misconfigured.stop();
      }
    });

    it('refuses another customer key, a FREE plan and a non-administrator before calling the provider', async () => {
      const { guildId } = await stack.registeredGuild('Guarded Guild');
      const user = owner();
      const issued = stack.provider.requestLog().length;
      const base = {
        checkout_id: await checkoutId(user, guildId),
        auth_key: 'x',
        customer_key: `user_${user.user_id}`,
        guild_id: guildId,
        plan_code: 'PRO',
      };
      const foreign = await stack.callBilling('POST', '/api/v1/billing/confirm', user, {
        ...base,
        customer_key: `user_${uuidv7()}`,
      });
      expect(foreign).toMatchObject({ status: 400, body: { code: 'ErrValidation' } });
      const free = await stack.callBilling('POST', '/api/v1/billing/confirm', user, {
        ...base,
        plan_code: 'FREE',
      });
      expect(free).toMatchObject({ status: 400, body: { code: 'ErrValidation' } });
      const member = await stack.callBilling('POST', '/api/v1/billing/confirm', stack.user(MEMBER), base);
      expect(member).toMatchObject({ status: 403 });
      const extra = await stack.callBilling('POST', '/api/v1/billing/confirm', user, { ...base, amount: 1 });
      expect(extra).toMatchObject({ status: 400, body: { code: 'ErrValidation' } });
      const notJson = await stack.callBilling('POST', '/api/v1/billing/confirm', user, '{"auth_key":');
      expect(notJson.status).toBe(400);
      expect(stack.provider.requestLog().length).toBe(issued);
    });

    it('cancels the subscription and keeps the card when the first charge is declined (402); a retry may succeed', async () => {
      const { guildId } = await stack.registeredGuild('Declined Guild');
      const user = owner();
      stack.provider.rejectCharges({
        customerKey: `user_${user.user_id}`,
        code: 'REJECT_CARD_PAYMENT',
        times: 1,
      });
      const declined = await stack.subscribe(user, guildId);
      expect(declined).toMatchObject({
        status: 402,
        body: { code: 'ErrPaymentRejected', provider_code: 'REJECT_CARD_PAYMENT' },
      });
      const id = declined.body.subscription_id as string;
      expect(await subscription(id)).toMatchObject({
        status: 'canceled',
        cancel_reason: 'first_charge_rejected',
        next_billing_at: null,
      });
      expect((await attempts(id)).map((a) => [a.status, a.failure_code])).toEqual([
        ['failed', 'REJECT_CARD_PAYMENT'],
      ]);
      const [key] = await dataSource.query(`SELECT status FROM billing.billing_keys WHERE user_id = $1`, [
        user.user_id,
      ]);
      expect(key).toEqual({ status: 'active' });
      expect(await types(id)).toEqual(['BillingKeyIssued']);

      const retried = await stack.subscribe(user, guildId);
      expect(retried).toMatchObject({ status: 200, body: { status: 'active' } });
      expect(retried.body.id).not.toBe(id);
      expect(await subscription(id)).toMatchObject({ status: 'canceled' });
    });

    it('keeps the attempt pending when the provider does not answer in time, then PAYMENT.DONE settles it once', async () => {
      const { guildId } = await stack.registeredGuild('Slow Guild');
      const user = owner();
      const answer = await stack.subscribeUnanswered(user, guildId);
      expect(answer).toMatchObject({
        status: 202,
        body: { status: 'pending', payment: { status: 'processing' } },
      });
      const id = answer.body.id as string;
      const orderId = `sub_${id}_001_r0`;
      expect(await attempts(id)).toEqual([expect.objectContaining({ order_id: orderId, status: 'pending' })]);
      await waitFor('the operator alert', () =>
        stack.billing.output().includes('"alert":"payment_outcome_unknown"'),
      );

      const done = stack.provider.paymentDoneEvent(orderId);
      const event = {
        event_id: done.eventId,
        event_type: done.eventType,
        data: done.data,
      } as RoutedProviderEvent;
      expect(await route(event)).toMatchObject({ status: 200, body: { outcome: 'applied' } });
      expect(await route(event)).toMatchObject({ status: 200, body: { outcome: 'already_applied' } });
      expect(await subscription(id)).toMatchObject({ status: 'active', cycle_count: 1 });
      expect((await attempts(id)).map((a) => a.status)).toEqual(['succeeded']);
      expect(stack.provider.charges().filter((charge) => charge.orderId === orderId)).toHaveLength(1);
      expect(await types(id)).toEqual(['BillingKeyIssued', 'SubscriptionStarted', 'PaymentSucceeded']);
    });

    it('gives one active subscription and one 409 for two concurrent confirms of one guild', async () => {
      const { guildId } = await stack.registeredGuild('Race Guild');
      const [first, second] = [owner(), stack.user(ADMIN)];
      const answers = await Promise.all([stack.subscribe(first, guildId), stack.subscribe(second, guildId)]);
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
      expect(answers.find((answer) => answer.status === 409)!.body).toMatchObject({
        code: 'ErrSubscriptionExists',
      });
      const rows = await dataSource.query<
        Pick<SubscriptionRow, 'status' | 'payer_user_id' | 'payer_platform_user_id'>[]
      >(
        `SELECT status, payer_user_id, payer_platform_user_id FROM billing.subscriptions WHERE guild_id = $1`,
        [guildId],
      );
      // The winner's platform id is stored with the winner, whichever of the two it was.
      const winner = [first, second].find((user) => user.user_id === rows[0]?.payer_user_id);
      expect(rows).toEqual([
        {
          status: 'active',
          payer_user_id: winner?.user_id,
          payer_platform_user_id: winner?.platform_user_id,
        },
      ]);
      const forGuild = stack.provider.charges().filter((charge) => charge.orderName.endsWith('Race Guild'));
      expect(forGuild).toHaveLength(1);
      // prepare already refuses the guild now that it has a subscription.
      await expect(stack.subscribe(first, guildId)).rejects.toThrow('ErrSubscriptionExists');
    });

    it("names the guild's licence in every subscription event, from the first one on (§6)", async () => {
      const { id, guildId, payer } = await activeSubscription(owner(), 'PRO');
      const licenseId = (await licence(guildId)).id;
      expect((await change(payer, id, 'ENTERPRISE')).status).toBe(200);
      expect((await change(payer, id, 'PRO')).status).toBe(200);
      expect((await stack.callBilling('POST', `/api/v1/subscriptions/${id}/cancel`, payer)).status).toBe(200);
      expect((await stack.callBilling('POST', `/api/v1/subscriptions/${id}/uncancel`, payer)).status).toBe(
        200,
      );
      const named = (await events(id)).filter((event) => event.type !== 'BillingKeyIssued');
      expect(
        named.map((event) => [event.type, (event.payload as { license_id?: unknown }).license_id]),
      ).toEqual(
        [
          'SubscriptionStarted',
          'PaymentSucceeded',
          'PlanUpgraded',
          'PlanDowngradeScheduled',
          'SubscriptionCanceled',
          'SubscriptionUncanceled',
        ].map((type) => [type, type === 'PaymentSucceeded' ? undefined : licenseId]),
      );
      // Licensing updates that same licence in place.
      await waitFor('licensing to follow', async () => (await licence(guildId)).code === 'ENTERPRISE');
      expect((await licence(guildId)).id).toBe(licenseId);
    });

    it("reuses the user's billing key for a second guild", async () => {
      const user = owner();
      const a = await activeSubscription(user);
      const b = await activeSubscription(user);
      expect((await subscription(a.id)).billing_key_id).toBe((await subscription(b.id)).billing_key_id);
      const [{ count }] = await dataSource.query(
        `SELECT count(*)::int AS count FROM billing.billing_keys WHERE user_id = $1`,
        [user.user_id],
      );
      expect(count).toBe(1);
    });
  });

  describe('plan changes', () => {
    it('lets only the payer change, does nothing for the same plan, upgrades once the difference is paid', async () => {
      const { id, payer, guildName } = await activeSubscription();
      const chargesBefore = stack.provider.charges().length;
      const stranger = await change(stack.user(ADMIN), id, 'ENTERPRISE');
      expect(stranger).toMatchObject({ status: 403, body: { code: 'ErrNotPayer' } });
      const same = await change(payer, id, 'PRO');
      expect(same).toMatchObject({ status: 200, body: { plan: 'PRO', effective_at: null } });
      expect(await types(id)).toHaveLength(3);

      expect(stack.provider.charges().length).toBe(chargesBefore);

      const upgraded = await change(payer, id, 'ENTERPRISE');
      expect(upgraded).toMatchObject({
        status: 200,
        body: { plan: 'ENTERPRISE', effective_at: 'now', pending: null, payment: { status: 'succeeded' } },
      });
      expect(await subscription(id)).toMatchObject({ plan_code: 'ENTERPRISE', pending_downgrade_to: null });
      const last = (await events(id)).at(-1) as DomainEvent<'PlanUpgraded'>;
      expect(last).toMatchObject({
        type: 'PlanUpgraded',
        payload: {
          old_plan_code: 'PRO',
          new_plan_code: 'ENTERPRISE',
          payer_user_id: payer.user_id,
          payer_platform_user_id: OWNER,
          guild_name: guildName,
        },
      });
      // The prorated difference (test/integration/upgrade-charge.test.ts has the rest).
      const charged = stack.provider.charges().slice(chargesBefore);
      expect(charged).toEqual([expect.objectContaining({ orderId: `upg_${id}_001_r0`, status: 'DONE' })]);
      expect(charged[0].amount).toBe((upgraded.body.payment as { amount_krw: number }).amount_krw);
      const bad = await change(payer, id, 'PLATINUM');
      expect(bad).toMatchObject({ status: 400, body: { code: 'ErrValidation' } });
      const missing = await change(payer, uuidv7(), 'PRO');
      expect(missing).toMatchObject({ status: 404, body: { code: 'ErrSubscriptionNotFound' } });
    });

    it('schedules a downgrade for period end, and a cancel takes priority over it', async () => {
      const { id, payer, guildName } = await activeSubscription(owner(), 'ENTERPRISE');
      const row = await subscription(id);
      const downgraded = await change(payer, id, 'PRO');
      expect(downgraded).toMatchObject({
        status: 200,
        body: { plan: 'ENTERPRISE', pending: 'PRO', effective_at: row.current_period_end!.toISOString() },
      });
      const scheduled = (await events(id)).at(-1) as DomainEvent<'PlanDowngradeScheduled'>;
      expect(scheduled).toMatchObject({
        type: 'PlanDowngradeScheduled',
        payload: { new_plan_code: 'PRO', effective_at: row.current_period_end!.toISOString() },
      });
      await change(payer, id, 'PRO');
      expect((await types(id)).filter((type) => type === 'PlanDowngradeScheduled')).toHaveLength(1);

      const toFree = await change(payer, id, 'FREE');
      expect(toFree).toMatchObject({
        status: 200,
        body: { plan: 'ENTERPRISE', pending: 'FREE', dropped_pending_downgrade_to: 'PRO' },
      });
      expect(await subscription(id)).toMatchObject({
        cancel_at_period_end: true,
        plan_code: 'ENTERPRISE',
        pending_downgrade_to: null,
      });
      // The plan the guild keeps until period end, not the pending downgrade.
      expect((await events(id)).at(-1)).toMatchObject({
        type: 'SubscriptionCanceled',
        payload: { plan_code: 'ENTERPRISE', payer_platform_user_id: OWNER, guild_name: guildName },
      });

      // At period end the cancel wins: the subscription ends instead of moving to PRO.
      await endPeriod(id);
      await waitFor('the cancel to be finalised', async () => (await subscription(id)).status === 'canceled');
      expect(await subscription(id)).toMatchObject({
        plan_code: 'ENTERPRISE',
        cancel_reason: 'period_end',
        next_billing_at: null,
      });
      expect((await types(id)).filter((type) => type === 'PlanDowngraded')).toEqual([]);
      const ended = (await events(id)).at(-1) as DomainEvent<'SubscriptionCanceledPeriodEnd'>;
      expect(ended).toMatchObject({
        type: 'SubscriptionCanceledPeriodEnd',
        payload: {
          reason: 'period_end',
          plan_code: 'ENTERPRISE',
          payer_user_id: payer.user_id,
          payer_platform_user_id: OWNER,
          guild_name: guildName,
        },
      });
    });

    it('clears a pending downgrade on cancel and says so; an uncancel does not bring it back', async () => {
      const { id, payer } = await activeSubscription(owner(), 'ENTERPRISE');
      await change(payer, id, 'PRO');
      expect(await subscription(id)).toMatchObject({ pending_downgrade_to: 'PRO' });

      const canceled = await stack.callBilling('POST', `/subscriptions/${id}/cancel`, payer);
      expect(canceled).toMatchObject({
        status: 200,
        body: {
          canceled_at_period_end: true,
          dropped_pending_downgrade_to: 'PRO',
          subscription: { cancel_at_period_end: true, pending_downgrade_to: null, plan: 'ENTERPRISE' },
        },
      });
      expect(await subscription(id)).toMatchObject({
        cancel_at_period_end: true,
        pending_downgrade_to: null,
      });
      expect((await events(id)).at(-1)).toMatchObject({
        type: 'SubscriptionCanceled',
        payload: { dropped_pending_downgrade_to: 'PRO', plan_code: 'ENTERPRISE' },
      });

      const uncanceled = await stack.callBilling('POST', `/api/v1/subscriptions/${id}/uncancel`, payer);
      expect(uncanceled.body).toMatchObject({
        canceled_at_period_end: false,
        subscription: { pending_downgrade_to: null, plan: 'ENTERPRISE' },
      });
      expect(await subscription(id)).toMatchObject({
        cancel_at_period_end: false,
        pending_downgrade_to: null,
      });

      // Under a scheduled cancel a downgrade would never happen: refused rather than recorded.
      await stack.callBilling('POST', `/api/v1/subscriptions/${id}/cancel`, payer);
      const refused = await change(payer, id, 'PRO');
      expect(refused).toMatchObject({ status: 409, body: { code: 'ErrCancelScheduled' } });
      expect(await subscription(id)).toMatchObject({
        cancel_at_period_end: true,
        pending_downgrade_to: null,
      });
    });

    it('drops a pending downgrade on request: the plan renews as it is, and only the payer may', async () => {
      const { id, payer, guildId } = await activeSubscription(owner(), 'ENTERPRISE');
      await change(payer, id, 'PRO');
      const eventsBefore = await types(id);
      const path = `/api/v1/subscriptions/${id}/pending-downgrade`;

      const stranger = await stack.callBilling('DELETE', path, stack.user(ADMIN));
      expect(stranger).toMatchObject({ status: 403, body: { code: 'ErrNotPayer' } });
      expect(await subscription(id)).toMatchObject({ pending_downgrade_to: 'PRO' });

      const dropped = await stack.callBilling('DELETE', path, payer);
      expect(dropped).toMatchObject({
        status: 200,
        body: {
          plan: 'ENTERPRISE',
          pending: null,
          effective_at: null,
          dropped_pending_downgrade_to: 'PRO',
          subscription: { plan: 'ENTERPRISE', pending_downgrade_to: null },
        },
      });
      expect(await subscription(id)).toMatchObject({ plan_code: 'ENTERPRISE', pending_downgrade_to: null });
      // One event, in the same transaction, says who dropped which downgrade (for the audit log).
      const afterDrop = await types(id);
      expect(afterDrop).toEqual([...eventsBefore, 'PlanDowngradeCanceled']);
      expect((await events(id)).at(-1)).toMatchObject({
        type: 'PlanDowngradeCanceled',
        guild_id: guildId,
        payload: {
          subscription_id: id,
          payer_user_id: payer.user_id,
          requested_by_user: payer.user_id,
          plan_code: 'ENTERPRISE',
          dropped_plan_code: 'PRO',
          effective_at: (await subscription(id)).current_period_end!.toISOString(),
        },
      });
      // The next charge is the current plan's again.
      const read = await stack.callBilling('GET', `/api/v1/subscriptions/${id}`, payer);
      expect(read.body.next_charge).toMatchObject({ plan: 'ENTERPRISE', amount_krw: 29_900 });

      const again = await stack.callBilling('DELETE', path, payer);
      expect(again).toMatchObject({ status: 200, body: { dropped_pending_downgrade_to: null } });
      // Nothing was dropped the second time: no event.
      expect(await types(id)).toEqual(afterDrop);
      // Licensing takes no licence change from it: the guild stays on ENTERPRISE.
      await waitFor('licensing to follow', async () => (await licence(guildId)).code === 'ENTERPRISE');

      // At period end nothing moves to PRO: the subscription renews on ENTERPRISE.
      await endPeriod(id);
      await waitFor('the renewal', async () => (await subscription(id)).cycle_count === 2);
      expect(await subscription(id)).toMatchObject({ plan_code: 'ENTERPRISE', status: 'active' });
      expect((await attempts(id)).at(-1)).toMatchObject({
        cycle: 2,
        amount_krw: 29_900,
        status: 'succeeded',
      });
      expect((await types(id)).filter((type) => type === 'PlanDowngraded')).toEqual([]);

      const missing = await stack.callBilling(
        'DELETE',
        `/api/v1/subscriptions/${uuidv7()}/pending-downgrade`,
        payer,
      );
      expect(missing).toMatchObject({ status: 404, body: { code: 'ErrSubscriptionNotFound' } });
    });

    it('lets recovery name a payer who only ever used billing (the user directory is told at each guild check)', async () => {
      const { guildId } = await stack.registeredGuild(`Guild ${uuidv7().slice(-6)}`);
      await dataSource.query(`DELETE FROM recovery.user_directory WHERE platform_user_id = $1`, [ADMIN]);
      const payer = stack.user(ADMIN);
      const confirmed = await stack.subscribe(payer, guildId);
      expect(confirmed.status).toBe(200);
      expect(
        await dataSource.query(`SELECT user_id FROM recovery.user_directory WHERE platform_user_id = $1`, [
          ADMIN,
        ]),
      ).toEqual([{ user_id: payer.user_id }]);
      const named = await stack.call(
        stack.recovery,
        'GET',
        `/api/v1/guilds/${guildId}/member-names?user_id=${payer.user_id}`,
        owner(),
      );
      expect(named).toMatchObject({
        status: 200,
        body: { items: [{ user_id: payer.user_id, platform_user_id: ADMIN, name: 'admin' }] },
      });
    });

    it('shows the next charge, who pays and the card, to the payer and to other managers alike', async () => {
      const { id, payer } = await activeSubscription(owner(), 'ENTERPRISE');
      const row = await subscription(id);
      await change(payer, id, 'PRO');
      for (const reader of [payer, stack.user(ADMIN)]) {
        const read = await stack.callBilling('GET', `/api/v1/subscriptions/${id}`, reader);
        expect(read).toMatchObject({
          status: 200,
          body: {
            payer_user_id: payer.user_id,
            payer_platform_user_id: OWNER,
            card: { card_last4: expect.stringMatching(/^\d{3}\*$|^\d{4}$/) as unknown, status: 'active' },
            // The downgrade takes over before the renewal is charged.
            next_charge: { at: row.next_billing_at!.toISOString(), plan: 'PRO', amount_krw: 9_900 },
          },
        });
      }
      await stack.callBilling('POST', `/api/v1/subscriptions/${id}/cancel`, payer);
      const canceled = await stack.callBilling('GET', `/api/v1/subscriptions/${id}`, payer);
      expect(canceled.body).toMatchObject({ cancel_at_period_end: true, next_charge: null });
    });

    it('toggles cancel and uncancel with an event each time, on both cancel paths', async () => {
      const { id, payer, guildName } = await activeSubscription();
      const row = await subscription(id);
      const canceled = await stack.callBilling('POST', `/api/v1/subscriptions/${id}/cancel`, payer);
      expect(canceled).toMatchObject({
        status: 200,
        body: { canceled_at_period_end: true, active_until: row.current_period_end!.toISOString() },
      });
      const repeated = await stack.callBilling('POST', `/subscriptions/${id}/cancel`, payer);
      expect(repeated).toMatchObject({ status: 200, body: { canceled_at_period_end: true } });
      const uncanceled = await stack.callBilling('POST', `/api/v1/subscriptions/${id}/uncancel`, payer);
      expect(uncanceled).toMatchObject({ status: 200, body: { canceled_at_period_end: false } });
      const again = await stack.callBilling('POST', `/subscriptions/${id}/cancel`, payer);
      expect(again).toMatchObject({ status: 200, body: { canceled_at_period_end: true } });
      expect((await types(id)).slice(3)).toEqual([
        'SubscriptionCanceled',
        'SubscriptionUncanceled',
        'SubscriptionCanceled',
      ]);
      const stranger = await stack.callBilling('POST', `/subscriptions/${id}/cancel`, stack.user(ADMIN));
      expect(stranger).toMatchObject({ status: 403, body: { code: 'ErrNotPayer' } });
      const canceledEvent = (await events(id)).at(-1) as DomainEvent<'SubscriptionCanceled'>;
      expect(canceledEvent.payload).toEqual({
        subscription_id: id,
        license_id: row.license_id,
        cancel_at_period_end: true,
        effective_at: row.current_period_end!.toISOString(),
        requested_by_user: payer.user_id,
        payer_platform_user_id: OWNER,
        guild_name: guildName,
        plan_code: 'PRO',
        dropped_pending_downgrade_to: null,
      });
    });

    it('refuses an upgrade with 422 once the provider deleted the billing key', async () => {
      const { id, payer } = await activeSubscription();
      const [{ customer_key }] = await dataSource.query<{ customer_key: string }[]>(
        `SELECT k.customer_key FROM billing.billing_keys k JOIN billing.subscriptions s ON s.billing_key_id = k.id WHERE s.id = $1`,
        [id],
      );
      const key = stack.provider.billingKeys().find((candidate) => candidate.customerKey === customer_key)!;
      stack.provider.deleteBillingKey(key.billingKey);
      const deleted = stack.provider.billingKeyDeletedEvent(key.billingKey);
      const event = {
        event_id: deleted.eventId,
        event_type: deleted.eventType,
        data: deleted.data,
      } as RoutedProviderEvent;
      expect(await route(event)).toMatchObject({ status: 200, body: { outcome: 'applied' } });
      expect(await route(event)).toMatchObject({ status: 200, body: { outcome: 'already_applied' } });
      const upgrade = await change(payer, id, 'ENTERPRISE');
      expect(upgrade).toMatchObject({ status: 422, body: { code: 'ErrBillingKeyMissing' } });
      expect(await subscription(id)).toMatchObject({ plan_code: 'PRO' });
    });
  });

  describe('payment history', () => {
    it("lists each attempt with its order id, amount and outcome, newest first, to the guild's managers", async () => {
      const { guildId } = await stack.registeredGuild('History Guild');
      const user = owner();
      stack.provider.rejectCharges({
        customerKey: `user_${user.user_id}`,
        code: 'REJECT_CARD_PAYMENT',
        times: 1,
      });
      const declined = await stack.subscribe(user, guildId);
      const declinedId = declined.body.subscription_id as string;
      const declinedHistory = await stack.callBilling(
        'GET',
        `/api/v1/subscriptions/${declinedId}/payments`,
        user,
      );
      expect(declinedHistory).toMatchObject({
        status: 200,
        body: {
          items: [
            {
              order_id: `sub_${declinedId}_001_r0`,
              cycle: 1,
              retry_number: 0,
              plan: 'PRO',
              amount_krw: 9_900,
              status: 'failed',
              failure_code: 'REJECT_CARD_PAYMENT',
              failure_message: expect.any(String) as unknown,
              approved_at: null,
            },
          ],
        },
      });

      const confirmed = await stack.subscribe(user, guildId);
      const id = confirmed.body.id as string;
      await endPeriod(id);
      await waitFor('the renewal', async () => (await subscription(id)).cycle_count === 2);
      const history = await stack.callBilling(
        'GET',
        `/api/v1/subscriptions/${id}/payments`,
        stack.user(ADMIN),
      );
      expect(history.status).toBe(200);
      const items = history.body.items as { order_id: string; status: string; approved_at: string | null }[];
      expect(items.map((item) => [item.order_id, item.status])).toEqual([
        [`sub_${id}_002_r0`, 'succeeded'],
        [`sub_${id}_001_r0`, 'succeeded'],
      ]);
      expect(items.every((item) => item.approved_at !== null)).toBe(true);

      const member = await stack.callBilling(
        'GET',
        `/api/v1/subscriptions/${id}/payments`,
        stack.user(MEMBER),
      );
      expect(member).toMatchObject({ status: 404, body: { code: 'ErrSubscriptionNotFound' } });
      const bad = await stack.callBilling('GET', `/api/v1/subscriptions/${id}/payments?limit=0`, user);
      expect(bad).toMatchObject({ status: 400, body: { code: 'ErrValidation' } });
    });
  });

  describe('scheduled jobs', () => {
    it('applies a pending downgrade at period end, then renews at the lower price', async () => {
      const { id, payer } = await activeSubscription(owner(), 'ENTERPRISE');
      await stack.callBilling('POST', `/api/v1/subscriptions/${id}/change-plan`, payer, {
        new_plan_code: 'PRO',
      });
      await endPeriod(id);
      await waitFor('the renewal', async () => (await subscription(id)).cycle_count === 2, {
        timeoutMs: 15_000,
      });
      const row = await subscription(id);
      expect(row).toMatchObject({ plan_code: 'PRO', pending_downgrade_to: null, status: 'active' });
      expect(row.current_period_end!.getTime()).toBeGreaterThan(Date.now() + 27 * DAY_MS);
      expect((await attempts(id)).at(-1)).toMatchObject({
        order_id: `sub_${id}_002_r0`,
        status: 'succeeded',
        amount_krw: 9_900,
      });
      const emitted = await events(id);
      expect(emitted.map((event) => event.type).slice(-2)).toEqual(['PlanDowngraded', 'PaymentSucceeded']);
      expect(emitted.at(-1)!.payload).toMatchObject({
        cycle: 2,
        plan_code: 'PRO',
        current_period_end: row.current_period_end!.toISOString(),
      });
    });

    it('renews due subscriptions and skips canceled and cancel-at-period-end ones', async () => {
      const due = await activeSubscription();
      const leaving = await activeSubscription();
      await stack.callBilling('POST', `/api/v1/subscriptions/${leaving.id}/cancel`, leaving.payer);
      await dataSource.query(
        `UPDATE billing.subscriptions SET next_billing_at = now() - interval '1 minute' WHERE id = $1`,
        [leaving.id],
      );
      const ended = await activeSubscription();
      await dataSource.query(
        `UPDATE billing.subscriptions SET status = 'canceled', canceled_at = now(), next_billing_at = now() - interval '1 minute'
          WHERE id = $1`,
        [ended.id],
      );
      await endPeriod(due.id);
      await waitFor('the due renewal', async () => (await subscription(due.id)).cycle_count === 2, {
        timeoutMs: 15_000,
      });
      expect(await attempts(leaving.id)).toHaveLength(1);
      expect(await attempts(ended.id)).toHaveLength(1);
    });

    it('charges each due renewal once while two replicas run the job in parallel', async () => {
      const replica = await stack.startBilling();
      try {
        const subscriptions = await Promise.all(Array.from({ length: 5 }, () => activeSubscription()));
        await Promise.all(subscriptions.map(({ id }) => endPeriod(id)));
        for (const { id } of subscriptions) {
          await waitFor(`renewal of ${id}`, async () => (await subscription(id)).cycle_count === 2, {
            timeoutMs: 20_000,
          });
        }
        for (const { id } of subscriptions) {
          // Any retry number: a second attempt of the cycle would be a second charge of the card.
          const cycleTwo = (orderId: string) => orderId.startsWith(`sub_${id}_002_r`);
          expect(stack.provider.charges().filter((charge) => cycleTwo(charge.orderId))).toHaveLength(1);
          expect((await attempts(id)).filter((attempt) => attempt.cycle === 2)).toHaveLength(1);
          expect((await types(id)).filter((type) => type === 'PaymentSucceeded')).toHaveLength(2);
        }
      } finally {
        await replica.stop();
      }
    });

    it('refuses a second charge in flight for a subscription, whatever its cycle and retry', async () => {
      const { id } = await activeSubscription();
      const insert = (manager: EntityManager, retry: number) =>
        manager.query(
          `INSERT INTO billing.payment_attempts
             (id, subscription_id, cycle, retry_number, order_id, order_name, plan_code, amount_krw, status)
           VALUES ($1, $2, 2, $3, $4, 'order', 'PRO', 9900, 'pending')`,
          [uuidv7(), id, retry, `sub_${id}_002_r${retry}`],
        );
      // Rolled back either way: the running jobs never see these rows.
      const refused = await dataSource
        .transaction(async (manager) => {
          await insert(manager, 0);
          await insert(manager, 1);
        })
        .catch((error: { code?: string; constraint?: string }) => error);
      expect(refused).toMatchObject({ code: '23505', constraint: 'payment_attempts_one_pending_idx' });
      expect((await attempts(id)).map((attempt) => attempt.cycle)).toEqual([1]);
    });

    it('moves a declined renewal to past_due with retries at +1, +3 and +5 days, then ends it', async () => {
      const { id, payer, guildName } = await activeSubscription();
      const customerKey = `user_${payer.user_id}`;
      stack.provider.rejectCharges({ customerKey, code: 'REJECT_CARD_PAYMENT' });
      try {
        await endPeriod(id);
        const due = (await subscription(id)).current_period_end!;
        for (const [retry, days] of [
          [0, 1],
          [1, 3],
          [2, 5],
        ] as const) {
          await waitFor(`retry ${retry} to fail`, async () =>
            (await attempts(id)).some(
              (a) => a.cycle === 2 && a.retry_number === retry && a.status === 'failed',
            ),
          );
          const row = await subscription(id);
          expect(row.status).toBe('past_due');
          expect(row.next_billing_at!.getTime()).toBe(due.getTime() + days * DAY_MS);
          const blocked = await stack.callBilling('POST', `/api/v1/subscriptions/${id}/change-plan`, payer, {
            new_plan_code: 'ENTERPRISE',
          });
          expect(blocked).toMatchObject({ status: 409, body: { code: 'ErrSubscriptionNotActive' } });
          await dataSource.query(`UPDATE billing.subscriptions SET next_billing_at = now() WHERE id = $1`, [
            id,
          ]);
        }
        await waitFor('the subscription to end', async () => (await subscription(id)).status === 'canceled');
        expect(await subscription(id)).toMatchObject({
          cancel_reason: 'payment_failed',
          next_billing_at: null,
        });
        expect((await attempts(id)).map((a) => a.order_id).slice(1)).toEqual(
          [0, 1, 2, 3].map((retry) => `sub_${id}_002_r${retry}`),
        );
        const last = (await events(id)).at(-1) as DomainEvent<'SubscriptionCanceledPeriodEnd'>;
        expect(last).toMatchObject({
          type: 'SubscriptionCanceledPeriodEnd',
          payload: {
            reason: 'payment_failed',
            plan_code: 'PRO',
            payer_user_id: payer.user_id,
            payer_platform_user_id: OWNER,
            guild_name: guildName,
          },
        });
      } finally {
        stack.provider.clearChargeRejections();
      }
    });

    it('keeps the paid plan through the renewal window and every past_due retry; only the end drops it, with LicenseDowngraded', async () => {
      const { id, guildId, payer } = await activeSubscription();
      stack.provider.rejectCharges({ customerKey: `user_${payer.user_id}`, code: 'REJECT_CARD_PAYMENT' });
      try {
        // The period ended a minute ago; the renewal charge is due in ten minutes (its jitter).
        await monthGoesBy(id, guildId, 60_000, 10 * 60_000);
        expect(await entitlements(guildId)).toMatchObject({ plan_code: 'PRO', status: 'active' });
        for (const retry of [0, 1, 2, 3]) {
          await dataSource.query(`UPDATE billing.subscriptions SET next_billing_at = now() WHERE id = $1`, [
            id,
          ]);
          await waitFor(`charge r${retry} to fail`, async () =>
            (await attempts(id)).some(
              (a) => a.cycle === 2 && a.retry_number === retry && a.status === 'failed',
            ),
          );
          if (retry === 3) break;
          expect((await subscription(id)).status).toBe('past_due');
          expect(await entitlements(guildId)).toMatchObject({ plan_code: 'PRO', status: 'active' });
        }
        await waitFor('the subscription to end', async () => (await subscription(id)).status === 'canceled');
        await waitFor('licensing to drop the plan', async () => (await licence(guildId)).code === 'FREE');
        expect(await entitlements(guildId)).toMatchObject({ plan_code: 'FREE', status: 'active' });
        expect(await licence(guildId)).toMatchObject({ expires_at: null, grace_until: null });
        expect((await licensingEvents(guildId)).at(-1)).toMatchObject({
          type: 'LicenseDowngraded',
          payload: { old_plan_code: 'PRO', new_plan_code: 'FREE', cause: 'SubscriptionCanceledPeriodEnd' },
        });
      } finally {
        stack.provider.clearChargeRejections();
      }
    });

    it('ends the plan at period end, without grace, once a cancel is scheduled', async () => {
      const { id, guildId, payer } = await activeSubscription();
      await waitFor(
        'licensing to give the renewal grace',
        async () => (await licence(guildId))?.grace_until !== null,
      );
      await stack.callBilling('POST', `/api/v1/subscriptions/${id}/cancel`, payer);
      await waitFor('licensing to drop the grace', async () => (await licence(guildId)).grace_until === null);
      await monthGoesBy(id, guildId, 1_000);
      expect(await entitlements(guildId)).toMatchObject({ plan_code: 'FREE' });
      await waitFor('the cancel to be finalised', async () => (await subscription(id)).status === 'canceled');
    });

    it('gives subscriptions from before licence ids were asked for their licence id', async () => {
      const { id, guildId } = await activeSubscription();
      await dataSource.query(`UPDATE billing.subscriptions SET license_id = NULL WHERE id = $1`, [id]);
      await waitFor('the licence id', async () => (await subscription(id)).license_id !== null);
      expect((await subscription(id)).license_id).toBe((await licence(guildId)).id);
    });

    it('returns a past_due subscription to active when a retry goes through', async () => {
      const { id, payer } = await activeSubscription();
      stack.provider.rejectCharges({
        customerKey: `user_${payer.user_id}`,
        code: 'REJECT_CARD_PAYMENT',
        times: 1,
      });
      await endPeriod(id);
      await waitFor('past_due', async () => (await subscription(id)).status === 'past_due');
      await dataSource.query(`UPDATE billing.subscriptions SET next_billing_at = now() WHERE id = $1`, [id]);
      await waitFor('the retry to succeed', async () => (await subscription(id)).status === 'active');
      expect(await subscription(id)).toMatchObject({ cycle_count: 2 });
      expect((await attempts(id)).slice(1).map((a) => [a.order_id, a.status])).toEqual([
        [`sub_${id}_002_r0`, 'failed'],
        [`sub_${id}_002_r1`, 'succeeded'],
      ]);
    });

    it('looks an unanswered charge up by its order id and settles it once, without sending it again', async () => {
      const { guildId } = await stack.registeredGuild('Reconcile Guild');
      const answer = await stack.subscribeUnanswered(owner(), guildId);
      expect(answer.status).toBe(202);
      const id = answer.body.id as string;
      const replica = await stack.startBilling({ PAYMENT_RECONCILE_AFTER_MS: '1000' });
      try {
        await waitFor(
          'the re-sent charge to settle',
          async () => (await subscription(id)).status === 'active',
        );
      } finally {
        await replica.stop();
      }
      const orderId = `sub_${id}_001_r0`;
      expect(stack.provider.charges().filter((charge) => charge.orderId === orderId)).toHaveLength(1);
      const requests = stack.provider.requestLog();
      expect(requests.some((r) => r.method === 'GET' && r.path === `/v1/payments/orders/${orderId}`)).toBe(
        true,
      );
      // The provider had the payment: nothing was sent again.
      expect(requests.filter((r) => r.method === 'POST' && r.idempotencyKey === orderId)).toHaveLength(1);
    });
  });

  describe("the payer's card on file (§4.5)", () => {
    const issueRequests = () =>
      stack.provider.requestLog().filter((request) => request.path === '/v1/billing/authorizations/issue')
        .length;
    const prepare = (user: ReturnType<typeof owner>, guildId: string) =>
      stack.callBilling('GET', `/api/v1/billing/prepare?guild_id=${guildId}&plan=PRO`, user);

    it('prepare says whether a card is on file; confirm without a card reuses it for another guild', async () => {
      const payer = owner();
      const first = await stack.registeredGuild('Card Guild A');
      expect((await prepare(payer, first.guildId)).body).toMatchObject({ saved_card: null });
      const a = await stack.subscribe(payer, first.guildId);
      const issued = stack.provider.billingKeys().find((key) => key.customerKey === `user_${payer.user_id}`)!;
      const card = { card_company: '신한', card_last4: issued.cardNumber.slice(-4), status: 'active' };
      expect(a).toMatchObject({ status: 200, body: { card } });

      const second = await stack.registeredGuild('Card Guild B');
      const prepared = await prepare(payer, second.guildId);
      expect(prepared.body).toMatchObject({ saved_card: card });
      const issuesBefore = issueRequests();
      const b = await stack.callBilling('POST', '/api/v1/billing/confirm', payer, {
        checkout_id: prepared.body.checkout_id,
        customer_key: prepared.body.customer_key,
        guild_id: second.guildId,
        plan_code: 'PRO',
      });
      expect(b).toMatchObject({ status: 200, body: { status: 'active', plan: 'PRO', card } });
      const bId = b.body.id as string;
      expect(issueRequests()).toBe(issuesBefore);
      expect((await subscription(bId)).billing_key_id).toBe(
        (await subscription(a.body.id as string)).billing_key_id,
      );
      // No key was issued, so none is announced.
      expect(await types(bId)).toEqual(['SubscriptionStarted', 'PaymentSucceeded']);
      const charged = stack.provider.charges().find((charge) => charge.orderId === `sub_${bId}_001_r0`);
      expect(charged).toMatchObject({ billingKey: issued.billingKey, status: 'DONE', amount: 9_900 });
      const listed = await stack.callBilling('GET', `/api/v1/guilds/${second.guildId}/subscriptions`, payer);
      expect(listed.body).toMatchObject({ items: [{ id: bId, card }] });
    });

    it('refuses a confirm without a card when none is on file, before calling the provider', async () => {
      const payer = owner();
      const { guildId } = await stack.registeredGuild('Cardless Guild');
      const requestsBefore = stack.provider.requestLog().length;
      const answer = await stack.callBilling('POST', '/api/v1/billing/confirm', payer, {
        checkout_id: await checkoutId(payer, guildId),
        customer_key: `user_${payer.user_id}`,
        guild_id: guildId,
        plan_code: 'PRO',
      });
      expect(answer).toMatchObject({
        status: 400,
        body: { code: 'ErrValidation', errors: [expect.objectContaining({ field: 'auth_key' })] },
      });
      expect(stack.provider.requestLog().length).toBe(requestsBefore);
      const [{ count }] = await dataSource.query(
        `SELECT count(*)::int AS count FROM billing.subscriptions WHERE guild_id = $1`,
        [guildId],
      );
      expect(count).toBe(0);
    });

    it("a new card replaces the card of all the payer's subscriptions, which are told so, and renewals charge it", async () => {
      const payer = owner();
      const customerKey = `user_${payer.user_id}`;
      const a = await activeSubscription(payer);
      const b = await activeSubscription(payer);
      const keysOf = (prefix: string) =>
        stack.provider
          .billingKeys()
          .filter((key) => key.customerKey === customerKey && key.cardNumber.startsWith(prefix));
      // Each of those confirms entered the default card again; the last one is the card on file.
      const oldKey = keysOf('43301234').at(-1)!;

      const third = await stack.registeredGuild('Card Guild C');
      const authKey = stack.provider.authorizeCard({
        customerKey,
        cardNumber: '9410987654325678',
        cardCompany: '현대',
      });
      const c = await stack.callBilling('POST', '/api/v1/billing/confirm', payer, {
        checkout_id: await checkoutId(payer, third.guildId),
        auth_key: authKey,
        customer_key: customerKey,
        guild_id: third.guildId,
        plan_code: 'PRO',
      });
      const [newKey] = keysOf('94109876');
      const card = { card_company: '현대', card_last4: newKey.cardNumber.slice(-4), status: 'active' };
      expect(c).toMatchObject({ status: 200, body: { card } });
      expect(await types(c.body.id as string)).not.toContain('SubscriptionCardChanged');

      for (const other of [a, b]) {
        const read = await stack.callBilling('GET', `/api/v1/subscriptions/${other.id}`, payer);
        expect(read.body).toMatchObject({ card });
        expect((await events(other.id)).at(-1)).toMatchObject({
          type: 'SubscriptionCardChanged',
          guild_id: other.guildId,
          payload: {
            subscription_id: other.id,
            payer_user_id: payer.user_id,
            payer_platform_user_id: OWNER,
            guild_name: other.guildName,
            plan_code: 'PRO',
            card_company: '현대',
            card_last4: card.card_last4,
            previous_card_last4: oldKey.cardNumber.slice(-4),
          },
        });
      }

      await endPeriod(a.id);
      await waitFor('the renewal', async () => (await subscription(a.id)).cycle_count === 2, {
        timeoutMs: 15_000,
      });
      const renewal = stack.provider.charges().find((charge) => charge.orderId === `sub_${a.id}_002_r0`);
      expect(renewal).toMatchObject({ billingKey: newKey.billingKey, status: 'DONE' });
    });
  });

  describe('provider events', () => {
    it('settles PAYMENT.FAILED for a pending charge, records PAYMENT.CANCELED, ignores foreign orders', async () => {
      const { guildId } = await stack.registeredGuild('Webhook Guild');
      const answer = await stack.subscribeUnanswered(owner(), guildId);
      const id = answer.body.id as string;
      const orderId = `sub_${id}_001_r0`;
      const failed: RoutedProviderEvent = {
        event_id: `evt_${uuidv7()}`,
        event_type: 'PAYMENT.FAILED',
        data: {
          paymentKey: null,
          orderId,
          status: 'ABORTED',
          failure: { code: 'REJECT_CARD_PAYMENT', message: 'limit' },
          customerKey: 'c',
        },
      };
      expect(await route(failed)).toMatchObject({ status: 200, body: { outcome: 'applied' } });
      expect(await route(failed)).toMatchObject({ status: 200, body: { outcome: 'already_applied' } });
      expect(await subscription(id)).toMatchObject({
        status: 'canceled',
        cancel_reason: 'first_charge_rejected',
      });

      const paid = await activeSubscription();
      const paidOrder = `sub_${paid.id}_001_r0`;
      const charge = stack.provider.charges().find((c) => c.orderId === paidOrder)!;
      stack.provider.cancelPayment(charge.paymentKey!, 'operator refund');
      const canceled = stack.provider.paymentCanceledEvent(charge.paymentKey!);
      const event = {
        event_id: canceled.eventId,
        event_type: canceled.eventType,
        data: canceled.data,
      } as RoutedProviderEvent;
      expect(await route(event)).toMatchObject({ status: 200, body: { outcome: 'applied' } });
      expect(await route(event)).toMatchObject({ status: 200, body: { outcome: 'already_applied' } });
      expect(await subscription(paid.id)).toMatchObject({ status: 'active' });
      await waitFor('the operator alert', () =>
        stack.billing.output().includes('"alert":"payment_canceled_at_provider"'),
      );

      const foreign = await route({
        ...failed,
        event_id: 'evt_x',
        data: { ...failed.data, orderId: 'order-of-someone-else' },
      });
      expect(foreign).toMatchObject({ status: 200, body: { outcome: 'ignored' } });
    });

    it('refuses malformed events and callers other than services', async () => {
      const malformed = await route({
        event_id: 'evt_bad',
        event_type: 'PAYMENT.DONE',
        data: { orderId: 'sub_x' },
      } as never);
      expect(malformed).toMatchObject({ status: 400, body: { code: 'ErrValidation' } });
      const unknownType = await route({
        event_id: 'evt_bad',
        event_type: 'PAYMENT.WHATEVER',
        data: {},
      } as never);
      expect(unknownType).toMatchObject({ status: 400, body: { code: 'ErrValidation' } });
      const asUser = await stack.callBilling('POST', '/internal/v1/provider-events', owner(), {
        event_id: 'evt_user',
        event_type: 'BILLING_KEY.DELETED',
        data: { billingKey: 'bk', customerKey: 'c', deletedAt: new Date().toISOString() },
      });
      expect(asUser).toMatchObject({ status: 403 });
      const anonymous = await fetch(`${stack.billing.url}/internal/v1/provider-events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [INTERNAL_TOKEN_HEADER]: 'forged' },
        body: '{}',
      });
      expect(anonymous.status).toBe(401);
    });
  });

  it('never logs a card number, billing key, auth key or secret during a full confirm', async () => {
    const before = stack.billing.output().length;
    const { guildId } = await stack.registeredGuild('Quiet Guild');
    const user = owner();
    const slow = await stack.subscribeUnanswered(user, guildId);
    expect(slow.status).toBe(202);
    const other = await activeSubscription(user);
    expect(other.id).toBeDefined();
    const logs = stack.billing.output().slice(before);
    expect(logs).toContain('payment_outcome_unknown');
    const secrets = [
      stack.provider.secretKey,
      Buffer.from(`${stack.provider.secretKey}:`).toString('base64'),
      process.env.BILLING_KEY_ENCRYPTION_KEY!,
      '4330123412341234',
      ...stack.provider.billingKeys().map((key) => key.billingKey),
    ];
    for (const secret of secrets) expect(logs).not.toContain(secret);
    for (const authKey of stack.authKeys) expect(logs).not.toContain(authKey);
  });

  it('refuses to start without a valid BILLING_KEY_ENCRYPTION_KEY and does not echo it', async () => {
    for (const value of [undefined, 'too-short-key-value']) {
      const proc = runScript('apps/billing/src/main.ts', { BILLING_KEY_ENCRYPTION_KEY: value, PORT: '0' });
      const { code } = await proc.exited;
      expect(code).toBe(1);
      expect(proc.output()).toContain('BILLING_KEY_ENCRYPTION_KEY');
      expect(proc.output()).not.toContain('too-short-key-value');
    }
  });
});
