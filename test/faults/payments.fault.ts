import type { DataSource } from 'typeorm';
import { WEBHOOK_PATH } from '../../apps/webhook-intake/src/webhooks/webhook-endpoint';
import { type AppProcess, startApp } from '../support/app-process';
import { BillingStack, endCurrentPeriods } from '../support/billing-stack';
import { openDataSource } from '../support/database';
import { OWNER } from '../support/restore-scenario';
import type { FakePaymentProvider } from '@lib/sandbox';
import { waitFor } from '../support/wait';
import { recordOutcome } from './support/fault-report';
import { TcpProxy } from './support/tcp-proxy';

/** The spec's provider time-out: billing gives up waiting after 30 s and leaves the attempt pending. */
const SPEC_PROVIDER_TIMEOUT_MS = 30_000;

/** Fixed, so a failure reproduces; PAYMENT_FAULTS_SEED=<seed> replays another run. */
const SEED = Number(process.env.PAYMENT_FAULTS_SEED ?? 41_2026);

/** mulberry32: a small seeded generator, uniform in [0, 1). */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

interface Settled {
  subscriptions: { id: string; status: string }[];
  attempts: { order_id: string; status: string }[];
  events: string[];
  approvedCharges: number;
}

/**
 * Payments when something between us and the money fails: billing loses its database while a
 * first charge is in flight, and the provider answers after billing stopped waiting. Whatever the
 * timing, a guild ends with one subscription, one succeeded attempt and one approved charge, or
 * with none of them; never a second charge.
 */
describe('payments under faults', () => {
  const stack = new BillingStack();
  let dataSource: DataSource;
  const started: AppProcess[] = [];

  beforeAll(async () => {
    dataSource = await openDataSource();
    await stack.start();
  });

  afterAll(async () => {
    await Promise.all(started.map((app) => app.stop()));
    await stack.stop();
    await dataSource?.destroy();
  });

  /** A webhook-intake routing to `billing`, as the provider's webhooks reach billing in production. */
  async function intakeFor(billing: AppProcess): Promise<AppProcess> {
    const intake = await startApp('webhook-intake', { BILLING_URL: billing.url });
    started.push(intake);
    return intake;
  }

  /** prepare + the card widget + confirm against `billing`, as the dashboard does. */
  async function confirm(billing: AppProcess, guildId: string) {
    const user = stack.user(OWNER);
    const prepared = await stack.call(
      billing,
      'GET',
      `/api/v1/billing/prepare?guild_id=${guildId}&plan=PRO`,
      user,
    );
    if (prepared.status !== 200) throw new Error(`prepare: ${JSON.stringify(prepared)}`);
    const customerKey = prepared.body.customer_key as string;
    const authKey = stack.provider.authorizeCard({ customerKey });
    return stack.call(billing, 'POST', '/api/v1/billing/confirm', user, {
      checkout_id: prepared.body.checkout_id,
      auth_key: authKey,
      customer_key: customerKey,
      guild_id: guildId,
      plan_code: 'PRO',
    });
  }

  async function settled(guildId: string): Promise<Settled> {
    const subscriptions = await dataSource.query<{ id: string; status: string }[]>(
      `SELECT id, status FROM billing.subscriptions WHERE guild_id = $1`,
      [guildId],
    );
    const ids = subscriptions.map((row) => row.id);
    const attempts = await dataSource.query<{ order_id: string; status: string }[]>(
      `SELECT order_id, status FROM billing.payment_attempts WHERE subscription_id = ANY($1::uuid[])`,
      [ids],
    );
    const events = await dataSource.query<{ event_type: string }[]>(
      `SELECT event_type FROM billing.outbox WHERE envelope->>'aggregate_id' = ANY($1::text[]) ORDER BY seq`,
      [ids],
    );
    const orders = new Set(attempts.map((attempt) => attempt.order_id));
    return {
      subscriptions,
      attempts,
      events: events.map((row) => row.event_type),
      approvedCharges: stack.provider.approvedCharges().filter((charge) => orders.has(charge.orderId)).length,
    };
  }

  it('Postgres connection loss during confirm: no half-written subscription, the resend settles it once', async () => {
    const proxy = new TcpProxy({
      host: '127.0.0.1',
      port: Number(new URL(process.env.DATABASE_URL!).port || 5432),
    });
    await proxy.start();
    // Billing reaches its database only through the proxy; its reconcile job re-sends pending
    // charges after 3 s (the spec's 10 minutes, shortened).
    const billing = await stack.startBilling({
      DATABASE_URL: proxy.through(process.env.DATABASE_URL!),
      PAYMENT_RECONCILE_AFTER_MS: '3000',
      BILLING_JOBS_INTERVAL_MS: '250',
    });
    started.push(billing);
    const intake = await intakeFor(billing);
    const { guildId } = await stack.registeredGuild('Partitioned Guild');

    // The charge is decided at once and answered 1.5 s later: the cut falls while it is in flight.
    stack.provider.setChargeDelay(1_500);
    const confirming = confirm(billing, guildId);
    const charge = await waitFor('the first charge to reach the provider', () =>
      stack.provider.charges().find((candidate) => candidate.orderName.endsWith('Partitioned Guild')),
    );
    proxy.cut();
    const answer = await confirming;
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    proxy.restore();
    stack.provider.setChargeDelay(0);

    // The provider resends PAYMENT.DONE until it is accepted.
    const done = stack.provider.paymentDoneEvent(charge.orderId);
    const resend = await waitFor('the provider resend to be accepted', async () => {
      const delivered = await stack.provider.sendWebhook(`${intake.url}${WEBHOOK_PATH}`, done);
      return delivered.status === 200 ? delivered : undefined;
    });
    const final = await waitFor('the subscription to settle', async () => {
      const state = await settled(guildId);
      return state.subscriptions.every((row) => row.status !== 'pending') ? state : undefined;
    });
    await proxy.stop();

    expect(resend.status).toBe(200);
    expect(final.subscriptions).toEqual([expect.objectContaining({ status: 'active' })]);
    expect(final.attempts).toEqual([{ order_id: charge.orderId, status: 'succeeded' }]);
    expect(final.events).toEqual(['BillingKeyIssued', 'SubscriptionStarted', 'PaymentSucceeded']);
    recordOutcome({
      fault: 'Postgres lost during confirm',
      checked: 'one subscription, one succeeded attempt, one charge; resend accepted',
      sent: 1,
      delivered: final.subscriptions.filter((row) => row.status === 'active').length,
      duplicated: Math.max(0, final.approvedCharges - 1) + Math.max(0, final.subscriptions.length - 1),
      lost: final.approvedCharges === 0 || final.subscriptions.length === 0 ? 1 : 0,
      notes: `confirm answered ${answer.status} during the cut`,
    });
  });

  it('provider slower than 30 s, then PAYMENT.DONE: one succeeded attempt, no second charge', async () => {
    const billing = await stack.startBilling({ PROVIDER_TIMEOUT_MS: String(SPEC_PROVIDER_TIMEOUT_MS) });
    started.push(billing);
    const intake = await intakeFor(billing);
    const { guildId } = await stack.registeredGuild('Slow Provider Guild');

    stack.provider.setChargeDelay(SPEC_PROVIDER_TIMEOUT_MS + 2_000);
    const startedAt = Date.now();
    const answer = await confirm(billing, guildId);
    const waitedMs = Date.now() - startedAt;
    stack.provider.setChargeDelay(0);
    expect(answer).toMatchObject({
      status: 202,
      body: { status: 'pending', payment: { status: 'processing' } },
    });

    const charge = stack.provider
      .charges()
      .find((candidate) => candidate.orderName.endsWith('Slow Provider Guild'))!;
    const done = stack.provider.paymentDoneEvent(charge.orderId);
    const deliveries = [
      await stack.provider.sendWebhook(`${intake.url}${WEBHOOK_PATH}`, done),
      // The provider may deliver twice; the second is a duplicate.
      await stack.provider.sendWebhook(`${intake.url}${WEBHOOK_PATH}`, done),
    ];
    const final = await waitFor('the subscription to start', async () => {
      const state = await settled(guildId);
      return state.subscriptions[0]?.status === 'active' ? state : undefined;
    });

    expect(deliveries.map((delivery) => delivery.status)).toEqual([200, 200]);
    expect(final.attempts).toEqual([{ order_id: charge.orderId, status: 'succeeded' }]);
    expect(final.events).toEqual(['BillingKeyIssued', 'SubscriptionStarted', 'PaymentSucceeded']);
    recordOutcome({
      fault: 'provider slower than 30 s',
      checked: '202 after the time-out; PAYMENT.DONE (twice) settles it once; no second charge',
      sent: 1,
      delivered: final.attempts.filter((attempt) => attempt.status === 'succeeded').length,
      duplicated: Math.max(0, final.approvedCharges - 1),
      lost: final.approvedCharges === 0 ? 1 : 0,
      notes: `confirm waited ${(waitedMs / 1000).toFixed(1)} s`,
    });
  });
  it('temporary 4xx at random during first charges and renewals: nothing doubled, no paying guild canceled, all settled', async () => {
    const random = seededRandom(SEED);
    // Looks pending charges up after 1 s, then every second.
    const billing = await stack.startBilling({
      PAYMENT_RECONCILE_AFTER_MS: '1000',
      PAYMENT_CHECK_MAX_INTERVAL_MS: '1000',
      BILLING_JOBS_INTERVAL_MS: '200',
    });
    started.push(billing);
    const arranged: string[] = [];
    /** One random temporary answer for the next one or two charges (of any payer), or none. */
    const arrangeMishap = (provider: FakePaymentProvider) => {
      const times = 1 + Math.floor(random() * 2);
      const pick = Math.floor(random() * 6);
      if (pick === 0) provider.failCharges({ code: 'PROVIDER_ERROR', times });
      else if (pick === 1) provider.failCharges({ code: 'FORBIDDEN_CONSECUTIVE_REQUEST', times });
      else if (pick === 2) provider.loseChargeAnswers({ times });
      else if (pick === 3) provider.loseChargeAnswers({ answer: 'DUPLICATED_ORDER_ID', times });
      else if (pick === 4) provider.loseChargeAnswers({ answer: 'ALREADY_PROCESSED_PAYMENT', times });
      arranged.push(['PROVIDER_ERROR', 'FORBIDDEN', 'lost', 'lost/DUPLICATED', 'lost/ALREADY', 'none'][pick]);
    };
    const guilds: string[] = [];
    const answers: number[] = [];

    try {
      for (let i = 0; i < 8; i++) {
        const { guildId } = await stack.registeredGuild(`Flaky Provider Guild ${i}`);
        guilds.push(guildId);
        arrangeMishap(stack.provider);
        answers.push((await confirm(billing, guildId)).status);
      }
      const firstSettled = await waitFor(
        'every first charge to settle',
        async () => {
          const states = await Promise.all(guilds.map((guildId) => settled(guildId)));
          return states.every((state) => state.attempts.every((attempt) => attempt.status !== 'pending'))
            ? states
            : undefined;
        },
        { timeoutMs: 90_000 },
      );
      expect(firstSettled.map((state) => state.subscriptions.map((row) => row.status))).toEqual(
        guilds.map(() => ['active']),
      );

      // A month goes by: every period ended a second ago and the renewals are due.
      for (let i = 0; i < guilds.length; i++) arrangeMishap(stack.provider);
      const ids = firstSettled.map((state) => state.subscriptions[0].id);
      await endCurrentPeriods(dataSource, ids);
      const final = await waitFor(
        'every renewal to settle',
        async () => {
          const states = await Promise.all(guilds.map((guildId) => settled(guildId)));
          const renewed = states.every(
            (state) =>
              state.attempts.length === 2 && state.attempts.every((attempt) => attempt.status !== 'pending'),
          );
          return renewed ? states : undefined;
        },
        { timeoutMs: 90_000 },
      );

      const attempts = final.flatMap((state) => state.attempts);
      const orders = new Set(attempts.map((attempt) => attempt.order_id));
      const approvedPerOrder = new Map<string, number>();
      for (const charge of stack.provider.approvedCharges().filter((c) => orders.has(c.orderId))) {
        approvedPerOrder.set(charge.orderId, (approvedPerOrder.get(charge.orderId) ?? 0) + 1);
      }
      const doubled = [...approvedPerOrder.values()].filter((count) => count > 1).length;
      // The charge requests of these orders the provider answered with a temporary 4xx.
      const temporary = stack.provider
        .requestLog()
        .filter(
          (request) =>
            request.method === 'POST' &&
            request.idempotencyKey !== null &&
            orders.has(request.idempotencyKey) &&
            (request.status === 400 || request.status === 403),
        ).length;
      const canceled = final.filter((state) =>
        state.subscriptions.some((row) => row.status !== 'active'),
      ).length;
      const unpaid = attempts.filter((attempt) => attempt.status !== 'succeeded').length;
      recordOutcome({
        fault: 'temporary 4xx at random (first charges, renewals)',
        checked: 'every attempt settled and paid once; no guild canceled or past_due',
        sent: attempts.length,
        delivered: attempts.filter((attempt) => attempt.status === 'succeeded').length,
        duplicated: doubled,
        lost: canceled + unpaid + (orders.size - approvedPerOrder.size),
        notes: `seed ${SEED}; ${temporary} charges answered 4xx (${arranged.join(', ')}); confirm answered ${answers.join(', ')}`,
      });
      expect(temporary).toBeGreaterThan(0);
      expect(doubled).toBe(0);
      expect(canceled).toBe(0);
      expect(attempts.map((attempt) => attempt.status)).toEqual(attempts.map(() => 'succeeded'));
      expect(approvedPerOrder.size).toBe(orders.size);
    } finally {
      stack.provider.clearChargeMishaps();
    }
  });
});
