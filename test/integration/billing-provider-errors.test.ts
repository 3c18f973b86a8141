import type { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import type { AppProcess } from '../support/app-process';
import { BillingStack, endCurrentPeriods } from '../support/billing-stack';
import { openDataSource } from '../support/database';
import { OWNER } from '../support/restore-scenario';
import { waitFor } from '../support/wait';

interface AttemptRow {
  order_id: string;
  status: string;
  cycle: number;
  retry_number: number;
  failure_code: string | null;
  receipt_url: string | null;
  check_count: number;
}

/**
 * How billing reads a charge Toss refused or did not answer: only card
 * declines fail it; a temporary error, a lost answer or a DUPLICATED_ORDER_ID leaves it pending,
 * and the scheduled look-up (`GET /v1/payments/orders/{orderId}`) settles it once, without a
 * second charge. Real billing, Postgres, Kafka, recovery and licensing, and the fake provider.
 */
describe('billing: reading a failed charge', () => {
  const stack = new BillingStack();
  let dataSource: DataSource;
  /** A second billing whose reconcile job looks pending charges up after 1 s, every second. */
  let checker: AppProcess;

  beforeAll(async () => {
    dataSource = await openDataSource();
    await stack.start();
    checker = await stack.startBilling({
      PAYMENT_RECONCILE_AFTER_MS: '1000',
      PAYMENT_CHECK_MAX_INTERVAL_MS: '1000',
      BILLING_JOBS_INTERVAL_MS: '200',
    });
  }, 120_000);

  afterAll(async () => {
    await checker?.stop();
    await stack.stop();
    await dataSource?.destroy();
  });

  const owner = () => stack.user(OWNER);
  const customerKeyOf = (user: ReturnType<typeof owner>) => `user_${user.user_id}`;

  async function subscription(id: string) {
    const [row] = await dataSource.query<
      { status: string; cycle_count: number; cancel_reason: string | null }[]
    >(`SELECT status, cycle_count, cancel_reason FROM billing.subscriptions WHERE id = $1`, [id]);
    return row;
  }

  async function attempts(subscriptionId: string): Promise<AttemptRow[]> {
    return dataSource.query<AttemptRow[]>(
      `SELECT order_id, status, cycle, retry_number, failure_code, receipt_url, check_count
         FROM billing.payment_attempts WHERE subscription_id = $1 ORDER BY cycle, retry_number`,
      [subscriptionId],
    );
  }

  async function eventTypes(subscriptionId: string): Promise<string[]> {
    const rows = await dataSource.query<{ type: string }[]>(
      `SELECT envelope->>'type' AS type FROM billing.outbox WHERE envelope->>'aggregate_id' = $1 ORDER BY seq`,
      [subscriptionId],
    );
    return rows.map((row) => row.type);
  }

  const chargesOf = (orderId: string) => stack.provider.charges().filter((c) => c.orderId === orderId);
  const chargeRequests = (orderId: string) =>
    stack.provider.requestLog().filter((r) => r.method === 'POST' && r.idempotencyKey === orderId);
  const lookUps = (orderId: string) =>
    stack.provider
      .requestLog()
      .filter((r) => r.method === 'GET' && r.path === `/v1/payments/orders/${orderId}`);

  async function newGuild(): Promise<string> {
    return (await stack.registeredGuild(`Errors ${uuidv7().slice(-6)}`)).guildId;
  }

  /** A confirm the provider did not settle: 202, the subscription pending. */
  async function pendingSubscription(user: ReturnType<typeof owner>, guildId: string): Promise<string> {
    const answer = await stack.subscribe(user, guildId);
    expect(answer).toMatchObject({
      status: 202,
      body: { status: 'pending', payment: { status: 'processing' } },
    });
    return answer.body.id as string;
  }

  const settledActive = (id: string) =>
    waitFor(
      'the look-up to settle the subscription',
      async () => (await subscription(id)).status === 'active',
      {
        timeoutMs: 30_000,
      },
    );

  it('a first charge answered PROVIDER_ERROR stays pending, and the look-up settles it active once', async () => {
    const user = owner();
    stack.provider.failCharges({ customerKey: customerKeyOf(user), code: 'PROVIDER_ERROR', times: 1 });
    const id = await pendingSubscription(user, await newGuild());
    const orderId = `sub_${id}_001_r0`;
    expect(await subscription(id)).toMatchObject({ status: 'pending' });

    await settledActive(id);

    // The look-up found no payment (the failure charged nothing): the same order was sent again
    // under the same Idempotency-Key, and charged once.
    expect(lookUps(orderId).length).toBeGreaterThanOrEqual(1);
    expect(chargeRequests(orderId)).toHaveLength(2);
    expect(chargesOf(orderId)).toEqual([expect.objectContaining({ status: 'DONE' })]);
    expect(await attempts(id)).toEqual([
      expect.objectContaining({ order_id: orderId, status: 'succeeded', failure_code: null }),
    ]);
    expect(await eventTypes(id)).toEqual(['BillingKeyIssued', 'SubscriptionStarted', 'PaymentSucceeded']);

    // The receipt of the approved charge is in the payment history.
    const payment = stack.provider.paymentByOrderId(orderId)!;
    const history = await stack.callBilling('GET', `/api/v1/subscriptions/${id}/payments`, user);
    expect(history).toMatchObject({
      status: 200,
      body: { items: [{ order_id: orderId, status: 'succeeded', receipt_url: payment.receipt!.url }] },
    });
    expect((await fetch(payment.receipt!.url)).status).toBe(200);
  });

  it('a charge made but answered PROVIDER_ERROR is settled by the look-up, never sent again', async () => {
    const user = owner();
    stack.provider.loseChargeAnswers({ customerKey: customerKeyOf(user), times: 1 });
    const id = await pendingSubscription(user, await newGuild());
    const orderId = `sub_${id}_001_r0`;

    await settledActive(id);

    expect(chargeRequests(orderId)).toHaveLength(1);
    expect(chargesOf(orderId)).toHaveLength(1);
    expect((await attempts(id))[0]).toMatchObject({ status: 'succeeded', receipt_url: expect.any(String) });
  });

  it('DUPLICATED_ORDER_ID after a lost answer settles by look-up with no second charge', async () => {
    const user = owner();
    stack.provider.loseChargeAnswers({
      customerKey: customerKeyOf(user),
      answer: 'DUPLICATED_ORDER_ID',
      times: 1,
    });
    const id = await pendingSubscription(user, await newGuild());
    const orderId = `sub_${id}_001_r0`;

    await settledActive(id);

    expect(chargesOf(orderId)).toEqual([expect.objectContaining({ status: 'DONE' })]);
    expect(chargeRequests(orderId)).toHaveLength(1);
    expect(lookUps(orderId).length).toBeGreaterThanOrEqual(1);
    expect((await attempts(id)).map((a) => [a.order_id, a.status])).toEqual([[orderId, 'succeeded']]);
    expect(await eventTypes(id)).toEqual(['BillingKeyIssued', 'SubscriptionStarted', 'PaymentSucceeded']);
  });

  it('a real decline code still cancels the first charge’s subscription (§4.12)', async () => {
    const user = owner();
    stack.provider.rejectCharges({
      customerKey: customerKeyOf(user),
      code: 'INVALID_STOPPED_CARD',
      times: 1,
    });
    const declined = await stack.subscribe(user, await newGuild());

    expect(declined).toMatchObject({
      status: 402,
      body: { code: 'ErrPaymentRejected', provider_code: 'INVALID_STOPPED_CARD' },
    });
    const id = declined.body.subscription_id as string;
    expect(await subscription(id)).toMatchObject({
      status: 'canceled',
      cancel_reason: 'first_charge_rejected',
    });
    expect((await attempts(id)).map((a) => [a.status, a.failure_code])).toEqual([
      ['failed', 'INVALID_STOPPED_CARD'],
    ]);
  });

  it('a renewal answered with a temporary error does not go past_due, and is settled once', async () => {
    const user = owner();
    const guildId = await newGuild();
    const confirmed = await stack.subscribe(user, guildId);
    expect(confirmed.status).toBe(200);
    const id = confirmed.body.id as string;
    stack.provider.failCharges({
      customerKey: customerKeyOf(user),
      code: 'FORBIDDEN_CONSECUTIVE_REQUEST',
      times: 1,
    });
    // The current period ended a second ago: the renewal is due.
    await endCurrentPeriods(dataSource, [id]);
    const renewalOrder = `sub_${id}_002_r0`;

    await waitFor('the renewal to be settled', async () => (await subscription(id)).cycle_count === 2, {
      timeoutMs: 30_000,
    });

    expect(await subscription(id)).toMatchObject({ status: 'active', cycle_count: 2 });
    // One attempt for the renewal, never failed: no past_due retry was ever scheduled.
    expect((await attempts(id)).map((a) => [a.order_id, a.status])).toEqual([
      [`sub_${id}_001_r0`, 'succeeded'],
      [renewalOrder, 'succeeded'],
    ]);
    expect(chargesOf(renewalOrder)).toHaveLength(1);
    expect(await eventTypes(id)).toEqual([
      'BillingKeyIssued',
      'SubscriptionStarted',
      'PaymentSucceeded',
      'PaymentSucceeded',
    ]);
  });
});
