import type { ProviderWebhookBody } from '@lib/contracts';
import { spawn } from 'node:child_process';
import type { DataSource } from 'typeorm';
import { WEBHOOK_PATH } from '../../apps/webhook-intake/src/webhooks/webhook-endpoint';
import { type AppProcess, freePort, startApp } from '../support/app-process';
import { BillingStack } from '../support/billing-stack';
import { BillingTap, portOpen } from '../support/billing-tap';
import { openDataSource } from '../support/database';
import { waitFor } from '../support/wait';
import { paymentDoneForUnknownOrder } from '../support/webhook-events';
import { recordOutcome } from './support/fault-report';
import { TcpProxy } from './support/tcp-proxy';

const EVENTS = 40;
const DELIVERIES_PER_EVENT = 3;

/**
 * The provider's webhooks while intake loses Postgres, and while Redis is gone: the provider resends
 * whatever was not answered 200, as it does; in the end every event is recorded and routed to
 * billing exactly once.
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

  /** PAYMENT.DONE of orders billing does not know: routed, answered `ignored`, nothing else moves. */
  function burst(): ProviderWebhookBody[] {
    return Array.from({ length: EVENTS }, () => paymentDoneForUnknownOrder(stack.provider, 'user_fault'));
  }

  /**
   * Every event delivered `DELIVERIES_PER_EVENT` times at once, then resent as the provider does
   * until one delivery is answered 200. Returns how many deliveries were made in all.
   */
  async function deliverUntilAccepted(intake: AppProcess, events: ProviderWebhookBody[]): Promise<number> {
    let deliveries = 0;
    const url = `${intake.url}${WEBHOOK_PATH}`;
    await Promise.all(
      events.map(async (event) => {
        const answers = await Promise.all(
          Array.from({ length: DELIVERIES_PER_EVENT }, () =>
            stack.provider.sendWebhook(url, event).catch(() => ({ status: 0 })),
          ),
        );
        deliveries += answers.length;
        if (answers.some((answer) => answer.status === 200)) return;
        await waitFor(
          `event ${event.eventId} to be accepted`,
          async () => {
            deliveries += 1;
            const answer = await stack.provider.sendWebhook(url, event).catch(() => ({ status: 0 }));
            return answer.status === 200;
          },
          { timeoutMs: 60_000, intervalMs: 500 },
        );
      }),
    );
    return deliveries;
  }

  /** Per event: its rows' results, and how often billing got it. */
  async function tally(events: ProviderWebhookBody[]) {
    const rows = await dataSource.query<{ external_event_id: string; success: number; rows: number }[]>(
      `SELECT external_event_id, count(*) FILTER (WHERE processing_result = 'success')::int AS success,
              count(*)::int AS rows
         FROM webhook.webhook_events WHERE external_event_id = ANY($1::text[]) GROUP BY external_event_id`,
      [events.map((event) => event.eventId)],
    );
    const byId = new Map(rows.map((row) => [row.external_event_id, row]));
    const routed = events.map((event) => tap.routed.get(event.eventId) ?? 0);
    return {
      recorded: rows.reduce((sum, row) => sum + row.rows, 0),
      succeeded: events.filter((event) => byId.get(event.eventId)?.success === 1).length,
      routedOnce: routed.filter((count) => count === 1).length,
      routedTwice: routed.filter((count) => count > 1).length,
      neverRouted: routed.filter((count) => count === 0).length,
    };
  }

  it('Postgres connection loss during intake: every event recorded, routed once, the resend succeeds', async () => {
    const proxy = new TcpProxy({
      host: '127.0.0.1',
      port: Number(new URL(process.env.DATABASE_URL!).port || 5432),
    });
    await proxy.start();
    const intake = await startApp('webhook-intake', {
      BILLING_URL: tapUrl,
      DATABASE_URL: proxy.through(process.env.DATABASE_URL!),
    });
    try {
      const events = burst();
      // The cut lands in the middle of the first deliveries and lasts 2 s.
      const outage = (async () => {
        await new Promise((resolve) => setTimeout(resolve, 150));
        proxy.cut();
        await new Promise((resolve) => setTimeout(resolve, 2_000));
        proxy.restore();
      })();
      const deliveries = await deliverUntilAccepted(intake, events);
      await outage;
      const counts = await tally(events);
      expect(counts).toMatchObject({ succeeded: EVENTS, routedOnce: EVENTS, routedTwice: 0, neverRouted: 0 });
      recordOutcome({
        fault: 'Postgres lost during webhook intake',
        checked: 'each event recorded success once and routed once after resends',
        sent: EVENTS,
        delivered: counts.routedOnce,
        duplicated: counts.routedTwice,
        lost: EVENTS - counts.succeeded,
        notes: `${deliveries} deliveries, ${counts.recorded} rows`,
      });
    } finally {
      await intake.stop();
      await proxy.stop();
    }
  });

  it('Redis down during webhook intake: still exactly once', async () => {
    const port = await freePort();
    const redis = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    await waitFor('redis to listen', () => portOpen(port));
    const intake = await startApp('webhook-intake', {
      BILLING_URL: tapUrl,
      REDIS_URL: `redis://127.0.0.1:${port}`,
    });
    try {
      const events = burst();
      const stopRedis = (async () => {
        await new Promise((resolve) => setTimeout(resolve, 100));
        redis.kill('SIGKILL');
      })();
      const deliveries = await deliverUntilAccepted(intake, events);
      await stopRedis;
      // And once more with Redis gone for good: the database alone answers duplicate.
      const again = await deliverUntilAccepted(intake, events);
      const counts = await tally(events);
      expect(counts).toMatchObject({ succeeded: EVENTS, routedOnce: EVENTS, routedTwice: 0, neverRouted: 0 });
      recordOutcome({
        fault: 'Redis down during webhook intake',
        checked: 'each event routed once, redeliveries recorded as duplicates',
        sent: EVENTS,
        delivered: counts.routedOnce,
        duplicated: counts.routedTwice,
        lost: EVENTS - counts.succeeded,
        notes: `${deliveries + again} deliveries, ${counts.recorded} rows`,
      });
    } finally {
      redis.kill('SIGKILL');
      await intake.stop();
    }
  });
});
