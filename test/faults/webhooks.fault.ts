import type { ProviderWebhookBody } from '@lib/contracts';
import { spawn } from 'node:child_process';
import type { DataSource } from 'typeorm';
import { readTossDelivery } from '../../apps/webhook-intake/src/webhooks/toss-delivery';
import { WEBHOOK_PATH } from '../../apps/webhook-intake/src/webhooks/webhook-endpoint';
import { type AppProcess, freePort, startApp } from '../support/app-process';
import { BillingStack, TEST_PROVIDER_TIMEOUT_MS } from '../support/billing-stack';
import { BillingTap, portOpen } from '../support/billing-tap';
import { openDataSource } from '../support/database';
import { OWNER } from '../support/restore-scenario';
import { waitFor } from '../support/wait';
import { recordOutcome } from './support/fault-report';
import { TcpProxy } from './support/tcp-proxy';

const EVENTS = 40;
const DELIVERIES_PER_EVENT = 3;

/** A first charge the provider approved but whose answer billing never got, and its PAYMENT.DONE. */
interface PendingPayment {
  subscriptionId: string;
  done: ProviderWebhookBody<'PAYMENT.DONE'>;
}

/**
 * The provider's webhooks while intake loses Postgres, and while Redis is gone. Each webhook is the
 * only news of a payment billing is waiting for; the provider resends whatever was not answered 200,
 * as it does. What must hold is what a payer and an operator see: every payment settled exactly once
 * (one active subscription, one succeeded attempt, one SubscriptionStarted and PaymentSucceeded, the
 * event applied once by billing's record), and every delivery recorded, each with its outcome.
 *
 * How often an event reached billing is reported but not asserted: delivery to billing is at least
 * once, and an event routed again is answered from billing's record of the events it applied.
 */
describe('webhook intake under faults', () => {
  const stack = new BillingStack();
  let tap: BillingTap;
  let tapUrl: string;
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = await openDataSource();
    await stack.start();
    tap = new BillingTap(stack.billing.url);
    tapUrl = await tap.start();
  });

  afterAll(async () => {
    await tap?.stop();
    await stack.stop();
    await dataSource?.destroy();
  });

  /** `EVENTS` subscriptions whose first charge went through at the provider, answered too late. */
  async function pendingPayments(label: string): Promise<PendingPayment[]> {
    stack.provider.setChargeDelay(TEST_PROVIDER_TIMEOUT_MS + 1_500);
    try {
      return await Promise.all(
        Array.from({ length: EVENTS }, async (_, i) => {
          const { guildId } = await stack.registeredGuild(`${label} ${i}`);
          const confirmed = await stack.subscribe(stack.user(OWNER), guildId);
          if (confirmed.status !== 202) throw new Error(`confirm: ${JSON.stringify(confirmed)}`);
          const subscriptionId = confirmed.body.id as string;
          return { subscriptionId, done: stack.provider.paymentDoneEvent(`sub_${subscriptionId}_001_r0`) };
        }),
      );
    } finally {
      stack.provider.setChargeDelay(0);
    }
  }

  /**
   * Every event delivered `DELIVERIES_PER_EVENT` times at once, then resent as the provider does
   * until one delivery is answered 200. Returns how many deliveries each event got, how many
   * answers were not 200, and how long the slowest answer took.
   */
  async function deliverUntilAccepted(intake: AppProcess, payments: PendingPayment[]) {
    const deliveries = new Map<string, number>();
    const answers = { refused: 0, slowestMs: 0 };
    const url = `${intake.url}${WEBHOOK_PATH}`;
    const deliver = async (event: ProviderWebhookBody) => {
      deliveries.set(event.eventId, (deliveries.get(event.eventId) ?? 0) + 1);
      const sentAt = Date.now();
      const answer = await stack.provider.sendWebhook(url, event).catch(() => ({ status: 0 }));
      answers.slowestMs = Math.max(answers.slowestMs, Date.now() - sentAt);
      if (answer.status !== 200) answers.refused += 1;
      return answer.status === 200;
    };
    await Promise.all(
      payments.map(async ({ done }) => {
        const answers = await Promise.all(Array.from({ length: DELIVERIES_PER_EVENT }, () => deliver(done)));
        if (answers.some(Boolean)) return;
        await waitFor(`event ${done.eventId} to be accepted`, () => deliver(done), {
          timeoutMs: 60_000,
          intervalMs: 500,
        });
      }),
    );
    return { deliveries, answers };
  }

  /**
   * What became of each payment and each delivery. A delivery answered 200 as a duplicate may come
   * before the delivery routing the event has finished: waits until no row of these events is
   * pending.
   */
  async function outcome(payments: PendingPayment[], deliveries: Map<string, number>) {
    const subscriptionIds = payments.map((payment) => payment.subscriptionId);
    const eventIds = payments.map((payment) => payment.done.eventId);
    await waitFor(
      'the routings in flight to finish',
      async () => {
        const [{ pending }] = await dataSource.query<{ pending: number }[]>(
          `SELECT count(*)::int AS pending FROM webhook.webhook_events
            WHERE external_event_id = ANY($1::text[]) AND processing_result = 'pending'`,
          [eventIds],
        );
        return pending === 0;
      },
      { timeoutMs: 30_000 },
    );
    const payment = new Map(
      (
        await dataSource.query<
          { id: string; status: string; succeeded: number; started: number; paid: number }[]
        >(
          `SELECT s.id, s.status,
                  (SELECT count(*)::int FROM billing.payment_attempts a
                    WHERE a.subscription_id = s.id AND a.status = 'succeeded') AS succeeded,
                  (SELECT count(*)::int FROM billing.outbox o
                    WHERE o.envelope->>'aggregate_id' = s.id::text AND o.event_type = 'SubscriptionStarted') AS started,
                  (SELECT count(*)::int FROM billing.outbox o
                    WHERE o.envelope->>'aggregate_id' = s.id::text AND o.event_type = 'PaymentSucceeded') AS paid
             FROM billing.subscriptions s WHERE s.id = ANY($1::uuid[])`,
          [subscriptionIds],
        )
      ).map((row) => [row.id, row]),
    );
    const applied = new Map(
      (
        await dataSource.query<{ event_id: string; outcome: string }[]>(
          `SELECT event_id, outcome FROM billing.provider_events WHERE event_id = ANY($1::text[])`,
          [eventIds],
        )
      ).map((row) => [row.event_id, row.outcome]),
    );
    const recorded = new Map(
      (
        await dataSource.query<{ event_id: string; rows: number; success: number; unsettled: number }[]>(
          `SELECT external_event_id AS event_id, count(*)::int AS rows,
                  count(*) FILTER (WHERE processing_result = 'success')::int AS success,
                  count(*) FILTER (WHERE processing_result NOT IN ('success', 'duplicate', 'failed'))::int AS unsettled
             FROM webhook.webhook_events WHERE external_event_id = ANY($1::text[]) GROUP BY external_event_id`,
          [eventIds],
        )
      ).map((row) => [row.event_id, row]),
    );
    const settledOnce = payments.filter(({ subscriptionId, done }) => {
      const row = payment.get(subscriptionId);
      return (
        row?.status === 'active' &&
        row.succeeded === 1 &&
        row.started === 1 &&
        row.paid === 1 &&
        applied.get(done.eventId) === 'applied'
      );
    });
    const settledTwice = payments.filter(({ subscriptionId }) => {
      const row = payment.get(subscriptionId);
      return row !== undefined && (row.succeeded > 1 || row.started > 1 || row.paid > 1);
    });
    const everyDelivery = payments.filter(({ done }) => {
      const rows = recorded.get(done.eventId);
      return (
        rows !== undefined &&
        rows.rows === deliveries.get(done.eventId) &&
        rows.success === 1 &&
        rows.unsettled === 0
      );
    });
    const routings = eventIds.map((id) => tap.routed.get(id) ?? 0);
    return {
      settledOnce: settledOnce.length,
      settledTwice: settledTwice.length,
      recordedEveryDelivery: everyDelivery.length,
      deliveries: [...deliveries.values()].reduce((sum, count) => sum + count, 0),
      rows: [...recorded.values()].reduce((sum, row) => sum + row.rows, 0),
      routedAgain: routings.filter((count) => count > 1).length,
    };
  }

  it('Postgres connection loss during intake: every payment settled once, every delivery recorded', async () => {
    const payments = await pendingPayments('Webhook Cut Guild');
    const proxy = new TcpProxy({
      host: '127.0.0.1',
      port: Number(new URL(process.env.DATABASE_URL!).port || 5432),
    });
    await proxy.start();
    const intake = await startApp('webhook-intake', {
      // The spec's signed envelope, which these deliveries are.
      PROVIDER_WEBHOOK_VERIFICATION: 'signature',
      BILLING_URL: tapUrl,
      DATABASE_URL: proxy.through(process.env.DATABASE_URL!),
    });
    try {
      // The cut lands in the middle of the first deliveries and lasts 2 s.
      const outage = (async () => {
        await new Promise((resolve) => setTimeout(resolve, 150));
        proxy.cut();
        await new Promise((resolve) => setTimeout(resolve, 2_000));
        proxy.restore();
      })();
      const { deliveries, answers } = await deliverUntilAccepted(intake, payments);
      await outage;
      const counts = await outcome(payments, deliveries);
      expect(counts).toMatchObject({ settledOnce: EVENTS, settledTwice: 0, recordedEveryDelivery: EVENTS });
      recordOutcome({
        fault: 'Postgres lost during webhook intake',
        checked: 'each payment settled once by its PAYMENT.DONE; each delivery recorded with its outcome',
        sent: EVENTS,
        delivered: counts.settledOnce,
        duplicated: counts.settledTwice,
        lost: EVENTS - counts.settledOnce,
        // The table shows 60 characters of notes.
        notes:
          `${counts.deliveries} deliveries in ${counts.rows} rows, ${answers.refused} not 200, ` +
          `slowest ${(answers.slowestMs / 1000).toFixed(1)} s, ${counts.routedAgain} re-routed`,
      });
    } finally {
      await intake.stop();
      await proxy.stop();
    }
  });

  it('Redis down during webhook intake: every payment settled once, every delivery recorded', async () => {
    const payments = await pendingPayments('Webhook Redis Guild');
    const port = await freePort();
    const redis = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    await waitFor('redis to listen', () => portOpen(port));
    const intake = await startApp('webhook-intake', {
      // The spec's signed envelope, which these deliveries are.
      PROVIDER_WEBHOOK_VERIFICATION: 'signature',
      BILLING_URL: tapUrl,
      REDIS_URL: `redis://127.0.0.1:${port}`,
    });
    try {
      const stopRedis = (async () => {
        await new Promise((resolve) => setTimeout(resolve, 100));
        redis.kill('SIGKILL');
      })();
      const { deliveries } = await deliverUntilAccepted(intake, payments);
      await stopRedis;
      // And once more with Redis gone for good: the database alone answers duplicate.
      const { deliveries: again } = await deliverUntilAccepted(intake, payments);
      for (const [eventId, count] of again) deliveries.set(eventId, (deliveries.get(eventId) ?? 0) + count);
      const counts = await outcome(payments, deliveries);
      expect(counts).toMatchObject({ settledOnce: EVENTS, settledTwice: 0, recordedEveryDelivery: EVENTS });
      // With the database whole, its unique row lets one delivery route each event.
      expect(counts.routedAgain).toBe(0);
      recordOutcome({
        fault: 'Redis down during webhook intake',
        checked: 'each payment settled once, routed once; each delivery recorded with its outcome',
        sent: EVENTS,
        delivered: counts.settledOnce,
        duplicated: counts.settledTwice,
        lost: EVENTS - counts.settledOnce,
        notes: `${counts.deliveries} deliveries in ${counts.rows} rows`,
      });
    } finally {
      redis.kill('SIGKILL');
      await intake.stop();
    }
  });

  it("Toss's deliveries while billing fails: every payment settled once by look-up, every transmission recorded", async () => {
    const payments = await pendingPayments('Webhook Toss Guild');
    const intake = await startApp('webhook-intake', {
      PROVIDER_WEBHOOK_VERIFICATION: 'lookup',
      BILLING_URL: tapUrl,
    });
    // Toss's schedule with a minute a millisecond: a failed delivery is back within milliseconds.
    stack.provider.setWebhookRetryTimeScale(1 / 60_000);
    try {
      const url = `${intake.url}${WEBHOOK_PATH}`;
      const bodies = payments.map(({ subscriptionId }) => {
        const payment = stack.provider.paymentByOrderId(`sub_${subscriptionId}_001_r0`)!;
        return stack.provider.tossPaymentEvent(payment.paymentKey);
      });
      const changeKeys = bodies.map((body) => {
        const read = readTossDelivery(body, Buffer.from(JSON.stringify(body)));
        if ('problem' in read) throw new Error(read.problem);
        return read.changeKey;
      });
      // Billing unreachable for the first half of the routings; each event sent twice at once.
      tap.failNext = EVENTS / 2;
      const transmissions = await Promise.all(
        bodies.flatMap((body) => [1, 2].map(() => stack.provider.deliverTossWebhook(url, body))),
      );
      const sent = transmissions.reduce((sum, list) => sum + list.length, 0);
      const refused = transmissions.flat().filter((transmission) => transmission.status !== 200).length;
      await waitFor('the routings in flight to finish', async () => {
        const [{ pending }] = await dataSource.query<{ pending: number }[]>(
          `SELECT count(*)::int AS pending FROM webhook.webhook_events
            WHERE external_event_id = ANY($1::text[]) AND processing_result = 'pending'`,
          [changeKeys],
        );
        return pending === 0;
      });
      const [settled] = await dataSource.query<{ active: number; twice: number }[]>(
        `SELECT count(*) FILTER (WHERE s.status = 'active' AND a.succeeded = 1)::int AS active,
                count(*) FILTER (WHERE a.succeeded > 1)::int AS twice
           FROM billing.subscriptions s
           CROSS JOIN LATERAL (SELECT count(*) FILTER (WHERE status = 'succeeded') AS succeeded
                                 FROM billing.payment_attempts WHERE subscription_id = s.id) a
          WHERE s.id = ANY($1::uuid[])`,
        [payments.map((payment) => payment.subscriptionId)],
      );
      const [recorded] = await dataSource.query<{ rows: number; success: number; applied: number }[]>(
        `SELECT (SELECT count(*)::int FROM webhook.webhook_events e
                  WHERE e.external_event_id = ANY($1::text[])) AS rows,
                (SELECT count(*)::int FROM webhook.webhook_events e
                  WHERE e.external_event_id = ANY($1::text[]) AND e.processing_result = 'success') AS success,
                (SELECT count(*)::int FROM billing.provider_events p
                  WHERE p.event_id = ANY($1::text[]) AND p.outcome = 'applied') AS applied`,
        [changeKeys],
      );
      expect(refused).toBeGreaterThan(0);
      expect(settled).toEqual({ active: EVENTS, twice: 0 });
      expect(recorded).toEqual({ rows: sent, success: EVENTS, applied: EVENTS });
      recordOutcome({
        fault: "billing down during Toss's deliveries",
        checked: 'each payment settled once by look-up; each transmission recorded',
        sent: EVENTS,
        delivered: settled.active,
        duplicated: settled.twice,
        lost: EVENTS - settled.active,
        notes: `${sent} transmissions in ${recorded.rows} rows, ${refused} not 200, resent on schedule`,
      });
    } finally {
      tap.failNext = 0;
      stack.provider.setWebhookRetryTimeScale(1);
      await intake.stop();
    }
  });
});
