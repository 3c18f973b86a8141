import type { PlanDefinition } from '@lib/contracts';
import type { EntitlementsClient } from '@lib/entitlements';
import { SchedulerRegistry } from '@nestjs/schedule';
import type { DataSource, EntityManager } from 'typeorm';
import { BillingSettings } from '../billing-settings';
import type {
  NewPaymentAttempt,
  PaymentAttemptRow,
  PaymentAttemptsRepository,
} from '../payments/payment-attempts.repository';
import type { PaymentsService } from '../payments/payments.service';
import type { SubscriptionRow } from '../subscriptions/subscription';
import type { SubscriptionEvents } from '../subscriptions/subscription-events';
import type { SubscriptionsRepository } from '../subscriptions/subscriptions.repository';
import { SubscriptionJobsService } from './subscription-jobs.service';

const NOW = new Date('2026-11-27T12:00:00Z');
const PRO: PlanDefinition = { code: 'PRO', name: 'Pro', price_krw: 9_900 } as PlanDefinition;

function dueSubscription(id: string): SubscriptionRow {
  return {
    id,
    guild_id: `guild-${id}`,
    plan_code: 'PRO',
    guild_name: 'Guild',
    status: 'active',
    cycle_count: 1,
    pending_downgrade_to: null,
    current_period_end: new Date(NOW.getTime() - 1_000),
    next_billing_at: new Date(NOW.getTime() - 1_000),
    cancel_at_period_end: false,
  } as SubscriptionRow;
}

function attemptRow(
  subscriptionId: string,
  cycle: number,
  retryNumber: number,
  status: PaymentAttemptRow['status'],
) {
  return {
    id: `attempt-${subscriptionId}-${cycle}-${retryNumber}`,
    subscription_id: subscriptionId,
    cycle,
    retry_number: retryNumber,
    order_id: `sub_${subscriptionId}_00${cycle}_r${retryNumber}`,
    status,
    amount_krw: PRO.price_krw,
  } as PaymentAttemptRow;
}

/**
 * The renewal job over fakes that play what Postgres does between two replicas: `claims` is what
 * successive claim statements return, `stored` the attempts the job's later statements read.
 */
function renewalJob(claims: SubscriptionRow[], stored: PaymentAttemptRow[]) {
  const inserted: NewPaymentAttempt[] = [];
  const charged: string[] = [];
  const queue = [...claims];
  const manager = {} as EntityManager;
  const subscriptions = {
    anyRenewalDue: () => Promise.resolve(true),
    claimDueRenewal: () => Promise.resolve(queue.shift() ?? null),
    claimDueDowngrade: () => Promise.resolve(null),
    claimDueCancel: () => Promise.resolve(null),
    listWithoutLicense: () => Promise.resolve([]),
  } as unknown as SubscriptionsRepository;
  const attempts = {
    pendingOf: (_: EntityManager, subscriptionId: string) =>
      Promise.resolve(
        stored.find((row) => row.subscription_id === subscriptionId && row.status === 'pending') ?? null,
      ),
    latestOfCycle: (_: EntityManager, subscriptionId: string, cycle: number) =>
      Promise.resolve(
        stored
          .filter((row) => row.subscription_id === subscriptionId && row.cycle === cycle)
          .sort((a, b) => b.retry_number - a.retry_number)[0] ?? null,
      ),
    insertPending: (_: EntityManager, attempt: NewPaymentAttempt) => {
      inserted.push(attempt);
      return Promise.resolve(
        attemptRow(attempt.subscriptionId, attempt.cycle, attempt.retryNumber, 'pending'),
      );
    },
    claimDueCheck: () => Promise.resolve(null),
    claimUnsettledToAlert: () => Promise.resolve([]),
  } as unknown as PaymentAttemptsRepository;
  const payments = {
    charge: (attempt: PaymentAttemptRow) => {
      charged.push(attempt.order_id);
      return Promise.resolve(null);
    },
  } as unknown as PaymentsService;
  const dataSource = {
    transaction: <T>(work: (manager: EntityManager) => Promise<T>) => work(manager),
  } as unknown as DataSource;
  const job = new SubscriptionJobsService(
    dataSource,
    new BillingSettings('client-key', 'guildkeeper', false, 60_000, 600_000, 'https://sdk.invalid'),
    subscriptions,
    attempts,
    payments,
    {} as SubscriptionEvents,
    { plans: () => Promise.resolve([PRO]) } as unknown as EntitlementsClient,
    new SchedulerRegistry(),
  );
  return { job, inserted, charged };
}

describe('SubscriptionJobsService renewals', () => {
  it('charges a due subscription whose cycle has no attempt yet, as retry 0', async () => {
    const { job, inserted, charged } = renewalJob([dueSubscription('a')], []);

    const report = await job.runOnce(NOW);

    expect(report.renewed).toBe(1);
    expect(inserted).toEqual([expect.objectContaining({ subscriptionId: 'a', cycle: 2, retryNumber: 0 })]);
    expect(charged).toEqual(['sub_a_002_r0']);
  });

  it('retries a declined cycle with the next retry number', async () => {
    const { job, inserted } = renewalJob([dueSubscription('a')], [attemptRow('a', 2, 0, 'failed')]);

    await job.runOnce(NOW);

    expect(inserted).toEqual([expect.objectContaining({ subscriptionId: 'a', cycle: 2, retryNumber: 1 })]);
  });

  it('leaves a subscription another replica claimed between the claim read and its lock, and goes on to the next', async () => {
    // The claim statement read "no pending attempt" before the other replica committed its own:
    // once the lock is granted, that pending attempt is there.
    const { job, inserted, charged } = renewalJob(
      [dueSubscription('raced'), dueSubscription('b')],
      [attemptRow('raced', 2, 0, 'pending')],
    );

    const report = await job.runOnce(NOW);

    expect(inserted).toEqual([expect.objectContaining({ subscriptionId: 'b', cycle: 2, retryNumber: 0 })]);
    expect(charged).toEqual(['sub_b_002_r0']);
    expect(report.renewed).toBe(1);
  });

  it('leaves a subscription whose upgrade charge committed between the claim read and its lock', async () => {
    // The upgrade's attempt pays the current cycle (1), not the one the renewal would charge (2):
    // only a look at every pending attempt of the subscription sees it.
    const upgrade = { ...attemptRow('upgrading', 1, 0, 'pending'), purpose: 'upgrade' } as PaymentAttemptRow;
    const { job, inserted, charged } = renewalJob([dueSubscription('upgrading')], [upgrade]);

    const report = await job.runOnce(NOW);

    expect(inserted).toEqual([]);
    expect(charged).toEqual([]);
    expect(report.renewed).toBe(0);
  });
});
