import type { DataSource } from 'typeorm';
import { WEBHOOK_PATH } from '../../apps/webhook-intake/src/webhooks/webhook-endpoint';
import { type AppProcess, startApp } from '../support/app-process';
import { BillingStack } from '../support/billing-stack';
import { openDataSource } from '../support/database';
import { OWNER } from '../support/restore-scenario';
import { waitFor } from '../support/wait';
import { recordOutcome } from './support/fault-report';
import { TcpProxy } from './support/tcp-proxy';

/** The spec's provider time-out: billing gives up waiting after 30 s and leaves the attempt pending. */
const SPEC_PROVIDER_TIMEOUT_MS = 30_000;

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
});
