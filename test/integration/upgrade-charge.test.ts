import type { DomainEvent } from '@lib/contracts';
import type { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { upgradeQuote } from '../../apps/billing/src/subscriptions/proration';
import { BillingStack, TEST_PROVIDER_TIMEOUT_MS } from '../support/billing-stack';
import { openDataSource } from '../support/database';
import { OWNER } from '../support/restore-scenario';
import { waitFor } from '../support/wait';

const PRO_KRW = 9_900;
const ENTERPRISE_KRW = 29_900;

interface PeriodRow {
  plan_code: string;
  status: string;
  cancel_at_period_end: boolean;
  current_period_start: Date;
  current_period_end: Date;
}

/**
 * Upgrades are paid for when they are made: an upgrade charges the prorated difference on the card on file and takes effect
 * when that charge is approved (README "Where the product departs from the spec"). Billing against
 * Postgres, Kafka, recovery, licensing and the sandbox provider.
 */
describe('upgrade charge', () => {
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

  async function row(id: string): Promise<PeriodRow> {
    const [found] = await dataSource.query<PeriodRow[]>(`SELECT * FROM billing.subscriptions WHERE id = $1`, [
      id,
    ]);
    return found;
  }

  async function eventTypes(id: string): Promise<string[]> {
    const rows = await dataSource.query<{ envelope: DomainEvent }[]>(
      `SELECT envelope FROM billing.outbox WHERE envelope->>'aggregate_id' = $1 ORDER BY seq`,
      [id],
    );
    return rows.map((r) => r.envelope.type);
  }

  /** The money the provider took for this subscription: every approved charge of its order ids. */
  const collected = (id: string) =>
    stack.provider
      .approvedCharges()
      .filter((charge) => charge.orderId.includes(id))
      .reduce((sum, charge) => sum + charge.amount, 0);

  const change = (payer: ReturnType<typeof owner>, id: string, plan: string) =>
    stack.callBilling('POST', `/api/v1/subscriptions/${id}/change-plan`, payer, { new_plan_code: plan });

  async function activePro() {
    const { guildId } = await stack.registeredGuild(`Upgrade ${uuidv7().slice(-6)}`);
    const payer = owner();
    const confirmed = await stack.subscribe(payer, guildId, 'PRO');
    expect(confirmed.status).toBe(200);
    return { guildId, payer, id: confirmed.body.id as string };
  }

  /** The prorated difference between the two moments around a request: the charge lies between. */
  function quoteBounds(period: PeriodRow, before: Date, after: Date) {
    const bounds = { start: period.current_period_start, end: period.current_period_end };
    return {
      max: upgradeQuote(PRO_KRW, ENTERPRISE_KRW, bounds, before).amount_krw,
      min: upgradeQuote(PRO_KRW, ENTERPRISE_KRW, bounds, after).amount_krw,
    };
  }

  it('says what an upgrade charges now, charges it, and puts the plan in force with the payment in history', async () => {
    const { id, payer, guildId } = await activePro();
    // Ten days into the period: a third of the month is gone, so about two thirds of the difference.
    await dataSource.query(
      `UPDATE billing.subscriptions SET current_period_start = current_period_start - interval '10 days',
              current_period_end = current_period_end - interval '10 days' WHERE id = $1`,
      [id],
    );
    const period = await row(id);
    const quoted = await stack.callBilling('GET', `/api/v1/subscriptions/${id}`, payer);
    expect(quoted.status).toBe(200);
    const options = quoted.body.upgrade_options as { plan: string; amount_krw: number }[];
    expect(options).toHaveLength(1);
    expect(options[0].plan).toBe('ENTERPRISE');

    const before = new Date();
    const upgraded = await change(payer, id, 'ENTERPRISE');
    const after = new Date();
    expect(upgraded).toMatchObject({
      status: 200,
      body: { plan: 'ENTERPRISE', effective_at: 'now', payment: { status: 'succeeded', plan: 'ENTERPRISE' } },
    });
    const amount = (upgraded.body.payment as { amount_krw: number }).amount_krw;
    const { min, max } = quoteBounds(period, before, after);
    expect(amount).toBeGreaterThanOrEqual(min);
    expect(amount).toBeLessThanOrEqual(max);
    expect(amount).toBeLessThanOrEqual(options[0].amount_krw); // never more than the page said
    expect(amount).toBeGreaterThan(((ENTERPRISE_KRW - PRO_KRW) * 19) / 31);
    expect(amount).toBeLessThan(((ENTERPRISE_KRW - PRO_KRW) * 21) / 28);

    const orderId = `upg_${id}_001_r0`;
    expect(stack.provider.approvedCharges().filter((c) => c.orderId === orderId)).toEqual([
      expect.objectContaining({ amount, idempotencyKey: orderId }),
    ]);
    expect(await row(id)).toMatchObject({ plan_code: 'ENTERPRISE', status: 'active' });
    expect((await eventTypes(id)).at(-1)).toBe('PlanUpgraded');

    const history = await stack.callBilling('GET', `/api/v1/subscriptions/${id}/payments`, payer);
    const items = history.body.items as Record<string, unknown>[];
    expect(items[0]).toMatchObject({
      order_id: orderId,
      purpose: 'upgrade',
      plan: 'ENTERPRISE',
      amount_krw: amount,
      status: 'succeeded',
      cycle: 1,
    });
    expect(items[1]).toMatchObject({ purpose: 'period', plan: 'PRO', amount_krw: PRO_KRW });
    // Nothing more to upgrade to.
    expect(
      (await stack.callBilling('GET', `/api/v1/subscriptions/${id}`, payer)).body.upgrade_options,
    ).toEqual([]);
    await waitFor('licensing to follow', async () => {
      const [licence] = await dataSource.query<{ code: string }[]>(
        `SELECT p.code FROM licensing.licenses l JOIN licensing.plans p ON p.id = l.plan_id WHERE l.guild_id = $1`,
        [guildId],
      );
      return licence?.code === 'ENTERPRISE';
    });
  });

  it("refuses a declined upgrade with the provider's reason and changes nothing", async () => {
    const { id, payer } = await activePro();
    stack.provider.rejectCharges({
      customerKey: `user_${payer.user_id}`,
      code: 'REJECT_CARD_PAYMENT',
      message: '한도초과 혹은 잔액부족으로 결제에 실패했습니다.',
      times: 1,
    });
    const eventsBefore = await eventTypes(id);
    const declined = await change(payer, id, 'ENTERPRISE');
    expect(declined.status).toBe(402);
    expect(declined.body).toMatchObject({
      code: 'ErrPaymentRejected',
      status: 402,
      provider_code: 'REJECT_CARD_PAYMENT',
      provider_message: '한도초과 혹은 잔액부족으로 결제에 실패했습니다.',
      order_id: `upg_${id}_001_r0`,
    });
    expect(declined.body.detail).toContain('한도초과 혹은 잔액부족으로 결제에 실패했습니다.');
    expect(declined.body.detail).toContain('The plan has not changed');
    expect(await row(id)).toMatchObject({ plan_code: 'PRO', status: 'active' });
    expect(await eventTypes(id)).toEqual(eventsBefore);
    expect(collected(id)).toBe(PRO_KRW);

    // The payer tries again (another card limit, the same card): a new order id, and it goes through.
    const retried = await change(payer, id, 'ENTERPRISE');
    expect(retried).toMatchObject({
      status: 200,
      body: { plan: 'ENTERPRISE', payment: { order_id: `upg_${id}_001_r1`, status: 'succeeded' } },
    });
  });

  it('upgrade then cancel: the money collected is the first charge plus the difference, nothing after', async () => {
    const { id, payer } = await activePro();
    const upgraded = await change(payer, id, 'ENTERPRISE');
    expect(upgraded.status).toBe(200);
    const difference = (upgraded.body.payment as { amount_krw: number }).amount_krw;
    expect(difference).toBeGreaterThan(ENTERPRISE_KRW - PRO_KRW - 100);
    const canceled = await stack.callBilling('POST', `/api/v1/subscriptions/${id}/cancel`, payer);
    expect(canceled).toMatchObject({ status: 200, body: { canceled_at_period_end: true } });
    await dataSource.query(
      `UPDATE billing.subscriptions SET current_period_end = now() - interval '1 second',
              next_billing_at = now() - interval '1 second' WHERE id = $1`,
      [id],
    );
    await waitFor('the period to end', async () => (await row(id)).status === 'canceled', {
      timeoutMs: 15_000,
    });
    expect(collected(id)).toBe(PRO_KRW + difference);
  });

  it('an unanswered upgrade charge stays pending, refuses another, and applies once the provider answers', async () => {
    const { id, payer } = await activePro();
    stack.provider.setChargeDelay(TEST_PROVIDER_TIMEOUT_MS + 1_500);
    let pending;
    try {
      pending = await change(payer, id, 'ENTERPRISE');
    } finally {
      stack.provider.setChargeDelay(0);
    }
    expect(pending).toMatchObject({
      status: 202,
      body: { plan: 'PRO', effective_at: null, payment: { status: 'pending', order_id: `upg_${id}_001_r0` } },
    });
    expect(await row(id)).toMatchObject({ plan_code: 'PRO' });
    const again = await change(payer, id, 'ENTERPRISE');
    expect(again).toMatchObject({ status: 409, body: { code: 'ErrPaymentPending' } });
    expect(
      (await stack.callBilling('GET', `/api/v1/subscriptions/${id}`, payer)).body.upgrade_options,
    ).toEqual([]);

    // The provider decided the charge (approved) though its answer was lost; a billing replica that
    // re-sends stale charges under the same order id learns it and settles the attempt once.
    const replica = await stack.startBilling({ PAYMENT_RECONCILE_AFTER_MS: '1000' });
    try {
      await waitFor('the upgrade to settle', async () => (await row(id)).plan_code === 'ENTERPRISE');
    } finally {
      await replica.stop();
    }
    const orderId = `upg_${id}_001_r0`;
    expect(stack.provider.charges().filter((c) => c.orderId === orderId)).toHaveLength(1);
    expect((await eventTypes(id)).filter((type) => type === 'PlanUpgraded')).toHaveLength(1);
  });
});
