import type { TossWebhookBody } from '@lib/contracts';
import type { WebhookDelivery } from '@lib/sandbox';
import type { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { type AppProcess, startApp } from '../support/app-process';
import { BillingTap } from '../support/billing-tap';
import { BillingStack } from '../support/billing-stack';
import { openDataSource } from '../support/database';
import { OWNER } from '../support/restore-scenario';
import { waitFor } from '../support/wait';

const ADMIN_TOKEN = 'test-admin-token-0123456789';
/** Toss's resend intervals with a minute a millisecond: its 3 days 19 hours in 5.5 s. */
const RETRY_TIME_SCALE = 1 / 60_000;

interface EventRow {
  external_event_id: string;
  event_type: string;
  signature: string | null;
  processing_result: string;
  processing_error: string | null;
  routing_outcome: string | null;
  duplicate_of: string | null;
}

/**
 * Toss's own deliveries (`{eventType, createdAt, data}`, unsigned, no event id) through the public
 * webhook endpoint of an intake in `lookup` mode: each believed only as the provider answers
 * billing's look-up (docs/behaviour.md §4.9).
 */
describe("Toss's webhooks, confirmed by a look-up", () => {
  const stack = new BillingStack();
  let tap: BillingTap;
  let intake: AppProcess;
  let dataSource: DataSource;
  let webhookUrl: string;

  beforeAll(async () => {
    dataSource = await openDataSource();
    await stack.start();
    stack.provider.setWebhookRetryTimeScale(RETRY_TIME_SCALE);
    tap = new BillingTap(stack.billing.url);
    intake = await startApp('webhook-intake', {
      PROVIDER_WEBHOOK_VERIFICATION: 'lookup',
      BILLING_URL: await tap.start(),
    });
    webhookUrl = `${intake.url}/webhooks/provider`;
  }, 120_000);

  afterAll(async () => {
    await intake?.stop();
    await tap?.stop();
    await stack.stop();
    await dataSource?.destroy();
  });

  const deliver = (body: TossWebhookBody) => stack.provider.deliverTossWebhook(webhookUrl, body);
  const answers = (transmissions: WebhookDelivery[]) =>
    transmissions.map(({ retriedCount, status }) => ({ retriedCount, status }));

  /** Every row the intake recorded for the deliveries of the change with this routed event id. */
  async function rows(changeKey: string): Promise<EventRow[]> {
    return dataSource.query<EventRow[]>(
      `SELECT e.external_event_id, e.event_type, e.signature, e.processing_result, e.processing_error,
              e.routing_outcome, e.duplicate_of
         FROM webhook.webhook_events e
        WHERE e.external_event_id = $1
           OR e.duplicate_of IN (SELECT id FROM webhook.webhook_events WHERE external_event_id = $1)
        ORDER BY e.created_at, e.id`,
      [changeKey],
    );
  }

  /** The change key intake derived for the latest delivery of `eventType` (the row it recorded). */
  async function latestChangeKey(eventType: string): Promise<string> {
    const [row] = await dataSource.query<{ external_event_id: string }[]>(
      `SELECT external_event_id FROM webhook.webhook_events
        WHERE source = 'provider' AND event_type = $1 AND external_event_id IS NOT NULL
        ORDER BY created_at DESC, id DESC LIMIT 1`,
      [eventType],
    );
    return row.external_event_id;
  }

  async function applied(changeKey: string) {
    return dataSource.query<{ outcome: string; detail: string }[]>(
      `SELECT outcome, detail FROM billing.provider_events WHERE event_id = $1`,
      [changeKey],
    );
  }

  const subscription = async (id: string) =>
    (
      await dataSource.query<{ status: string; cancel_reason: string | null }[]>(
        `SELECT status, cancel_reason FROM billing.subscriptions WHERE id = $1`,
        [id],
      )
    )[0];

  const attempts = (orderId: string) =>
    dataSource.query<{ status: string; provider_canceled_at: Date | null }[]>(
      `SELECT status, provider_canceled_at FROM billing.payment_attempts WHERE order_id = $1`,
      [orderId],
    );

  /** A first charge the provider decided but whose answer billing gave up on: pending. */
  async function pendingFirstCharge(name: string, declineWith?: string) {
    const { guildId } = await stack.registeredGuild(name);
    const user = stack.user(OWNER);
    if (declineWith) stack.provider.rejectCharges({ code: declineWith, times: 1 });
    const confirmed = await stack.subscribeUnanswered(user, guildId);
    expect(confirmed.status).toBe(202);
    const id = confirmed.body.id as string;
    const orderId = `sub_${id}_001_r0`;
    expect(await subscription(id)).toMatchObject({ status: 'pending' });
    const payment = stack.provider.paymentByOrderId(orderId);
    if (!payment) throw new Error(`the provider decided no charge for ${orderId}`);
    return { id, orderId, paymentKey: payment.paymentKey };
  }

  it('settles a pending first charge on PAYMENT_STATUS_CHANGED DONE, once, however often it comes', async () => {
    const { id, orderId, paymentKey } = await pendingFirstCharge('Toss Done Guild');
    const body = stack.provider.tossPaymentEvent(paymentKey);
    expect(body).not.toHaveProperty('eventId');

    expect(answers(await deliver(body))).toEqual([{ retriedCount: 0, status: 200 }]);
    expect(await subscription(id)).toMatchObject({ status: 'active' });
    const changeKey = await latestChangeKey('PAYMENT_STATUS_CHANGED');
    expect(await applied(changeKey)).toEqual([
      { outcome: 'applied', detail: expect.stringMatching(/^provider reports DONE: payment succeeded/) },
    ]);

    // Toss resends what it believes unanswered: recorded as a duplicate, applied no second time.
    expect(answers(await deliver(body))).toEqual([{ retriedCount: 0, status: 200 }]);
    const recorded = await rows(changeKey);
    expect(
      recorded.map(({ processing_result, routing_outcome, signature }) => ({
        processing_result,
        routing_outcome,
        signature,
      })),
    ).toEqual([
      { processing_result: 'success', routing_outcome: 'applied', signature: null },
      { processing_result: 'duplicate', routing_outcome: null, signature: null },
    ]);
    expect(tap.routed.get(changeKey)).toBe(1);
    expect(await attempts(orderId)).toEqual([expect.objectContaining({ status: 'succeeded' })]);
    expect(stack.provider.charges().filter((charge) => charge.orderId === orderId)).toHaveLength(1);
  });

  it('records a delivery for a payment key the provider does not know, and changes nothing', async () => {
    const { id, orderId, paymentKey } = await pendingFirstCharge('Toss Forged Guild');
    const real = stack.provider.tossPaymentEvent(paymentKey);
    const forged: TossWebhookBody = {
      ...real,
      data: { ...real.data, paymentKey: `pay_${uuidv7()}`, status: 'DONE' },
    };

    expect(answers(await deliver(forged))).toEqual([{ retriedCount: 0, status: 200 }]);

    const changeKey = await latestChangeKey('PAYMENT_STATUS_CHANGED');
    expect(await rows(changeKey)).toEqual([
      expect.objectContaining({ processing_result: 'success', routing_outcome: 'unconfirmed' }),
    ]);
    expect(await applied(changeKey)).toEqual([
      { outcome: 'unconfirmed', detail: expect.stringContaining('knows no payment') },
    ]);
    expect(await subscription(id)).toMatchObject({ status: 'pending' });
    expect(await attempts(orderId)).toEqual([expect.objectContaining({ status: 'pending' })]);
  });

  it("applies the provider's truth to a delivery whose body lies: DONE said, ABORTED reported", async () => {
    const { id, orderId, paymentKey } = await pendingFirstCharge('Toss Lying Guild', 'REJECT_CARD_PAYMENT');
    const real = stack.provider.tossPaymentEvent(paymentKey);
    expect(real.data.status).toBe('ABORTED');
    const lying: TossWebhookBody = {
      ...real,
      data: { ...real.data, status: 'DONE', approvedAt: new Date().toISOString(), failure: null },
    };

    expect(answers(await deliver(lying))).toEqual([{ retriedCount: 0, status: 200 }]);

    const changeKey = await latestChangeKey('PAYMENT_STATUS_CHANGED');
    expect(await applied(changeKey)).toEqual([
      {
        outcome: 'applied',
        detail: expect.stringMatching(/^provider reports ABORTED \(the delivery said DONE\): payment failed/),
      },
    ]);
    expect(await subscription(id)).toMatchObject({
      status: 'canceled',
      cancel_reason: 'first_charge_rejected',
    });
    expect(await attempts(orderId)).toEqual([expect.objectContaining({ status: 'failed' })]);
  });

  it('takes a canceled payment as PAYMENT.CANCELED, resent on the schedule until routed, applied once', async () => {
    const { id, orderId, paymentKey } = await pendingFirstCharge('Toss Cancel Guild');
    await deliver(stack.provider.tossPaymentEvent(paymentKey));
    expect(await subscription(id)).toMatchObject({ status: 'active' });
    stack.provider.cancelPayment(paymentKey, 'operator refund');
    const canceled = stack.provider.tossPaymentEvent(paymentKey);
    expect(canceled.data.status).toBe('CANCELED');

    // Billing cannot be reached for the first three: each is a 500, and Toss resends.
    tap.failNext = 3;
    const transmissions = await deliver(canceled);

    expect(answers(transmissions)).toEqual([
      { retriedCount: 0, status: 500 },
      { retriedCount: 1, status: 500 },
      { retriedCount: 2, status: 500 },
      { retriedCount: 3, status: 200 },
    ]);
    const changeKey = await latestChangeKey('PAYMENT_STATUS_CHANGED');
    const recorded = await rows(changeKey);
    expect(
      recorded.map(({ processing_result, routing_outcome }) => ({ processing_result, routing_outcome })),
    ).toEqual([
      { processing_result: 'failed', routing_outcome: null },
      { processing_result: 'failed', routing_outcome: null },
      { processing_result: 'failed', routing_outcome: null },
      { processing_result: 'success', routing_outcome: 'applied' },
    ]);
    expect(recorded.slice(0, 3).every((row) => row.processing_error?.includes('503'))).toBe(true);
    expect(tap.routed.get(changeKey)).toBe(1);
    // What the spec's PAYMENT.CANCELED does: the paid charge is marked canceled at the provider,
    // the subscription left as it is, and the operators alerted.
    const [attempt] = await attempts(orderId);
    expect(attempt).toMatchObject({ status: 'succeeded', provider_canceled_at: expect.any(Date) });
    expect(await subscription(id)).toMatchObject({ status: 'active' });
    await waitFor('the operator alert', () =>
      stack.billing.output().includes('"alert":"payment_canceled_at_provider"'),
    );

    // One more resend (its 200 lost on the way back, say): a duplicate, nothing applied again.
    await deliver(canceled);
    expect((await rows(changeKey)).at(-1)).toMatchObject({ processing_result: 'duplicate' });
    expect(await attempts(orderId)).toEqual([attempt]);
    expect(await applied(changeKey)).toHaveLength(1);
  });

  it('takes BILLING_DELETED as BILLING_KEY.DELETED: the card on file is deleted, once', async () => {
    const { id } = await pendingFirstCharge('Toss Key Guild');
    const [{ customer_key }] = await dataSource.query<{ customer_key: string }[]>(
      `SELECT k.customer_key FROM billing.billing_keys k
         JOIN billing.subscriptions s ON s.billing_key_id = k.id WHERE s.id = $1`,
      [id],
    );
    const key = stack.provider.billingKeys().find((candidate) => candidate.customerKey === customer_key)!;
    stack.provider.deleteBillingKey(key.billingKey);
    const body = stack.provider.tossBillingDeletedEvent(key.billingKey, '삭제 API 요청');

    expect(answers(await deliver(body))).toEqual([{ retriedCount: 0, status: 200 }]);
    expect(answers(await deliver(body))).toEqual([{ retriedCount: 0, status: 200 }]);

    const changeKey = await latestChangeKey('BILLING_DELETED');
    expect((await rows(changeKey)).map((row) => row.processing_result)).toEqual(['success', 'duplicate']);
    expect(await applied(changeKey)).toEqual([
      { outcome: 'applied', detail: 'the card on file is marked deleted' },
    ]);
    const [card] = await dataSource.query<{ status: string; deleted_at: Date | null }[]>(
      `SELECT k.status, k.deleted_at FROM billing.billing_keys k
         JOIN billing.subscriptions s ON s.billing_key_id = k.id WHERE s.id = $1`,
      [id],
    );
    expect(card).toMatchObject({ status: 'deleted', deleted_at: expect.any(Date) });
  });

  it('lets an operator reprocess a delivery Toss gave up on: looked up and applied then', async () => {
    const { id, paymentKey } = await pendingFirstCharge('Toss Given Up Guild');
    tap.failing = true;
    // A minute a tenth of a millisecond: the seven resends in about half a second.
    stack.provider.setWebhookRetryTimeScale(RETRY_TIME_SCALE / 10);
    let transmissions: WebhookDelivery[];
    try {
      transmissions = await deliver(stack.provider.tossPaymentEvent(paymentKey));
    } finally {
      tap.failing = false;
      stack.provider.setWebhookRetryTimeScale(RETRY_TIME_SCALE);
    }
    expect(answers(transmissions)).toEqual(
      [0, 1, 2, 3, 4, 5, 6, 7].map((retriedCount) => ({ retriedCount, status: 500 })),
    );
    const changeKey = await latestChangeKey('PAYMENT_STATUS_CHANGED');
    const failed = await dataSource.query<{ id: string }[]>(
      `SELECT id FROM webhook.webhook_events WHERE external_event_id = $1 AND processing_result = 'failed'
        ORDER BY created_at DESC LIMIT 1`,
      [changeKey],
    );
    expect(await subscription(id)).toMatchObject({ status: 'pending' });

    const reprocessed = await fetch(`${intake.url}/admin/v1/webhook-events/${failed[0].id}/reprocess`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });

    expect(reprocessed.status).toBe(200);
    expect(await reprocessed.json()).toMatchObject({
      processing_result: 'success',
      routing_outcome: 'applied',
    });
    expect(await subscription(id)).toMatchObject({ status: 'active' });
    expect((await rows(changeKey)).map((row) => row.processing_result)).toEqual([
      ...Array(8).fill('failed'),
      'success',
    ]);
  });

  it('records, without routing, a body that is not one of the payment events and refuses one not understood', async () => {
    const method: TossWebhookBody = {
      eventType: 'METHOD_UPDATED',
      createdAt: '2026-11-22T15:04:05.000000',
      data: { customerKey: `c_${uuidv7()}`, methodKey: 'm', status: 'ENABLED' },
    };
    expect(answers(await deliver(method))).toEqual([{ retriedCount: 0, status: 200 }]);
    const changeKey = await latestChangeKey('METHOD_UPDATED');
    expect(await rows(changeKey)).toEqual([
      expect.objectContaining({ processing_result: 'success', routing_outcome: 'not_routed' }),
    ]);
    expect(tap.routed.has(changeKey)).toBe(false);

    // A payment event naming no payment cannot be looked up: a 400, recorded, never routed.
    const answer = await stack.provider.sendRawWebhook(
      webhookUrl,
      JSON.stringify({ eventType: 'PAYMENT_STATUS_CHANGED', createdAt: 'x', data: { status: 'DONE' } }),
      { 'Content-Type': 'application/json' },
    );
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'ErrUnparseableWebhook' });
  });
});
