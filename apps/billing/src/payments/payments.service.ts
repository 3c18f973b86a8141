import { Injectable, Logger } from '@nestjs/common';
import { Counter } from 'prom-client';
import { DataSource, type EntityManager } from 'typeorm';
import { BillingKeysRepository } from '../billing-keys/billing-keys.repository';
import {
  type ChargeOutcome,
  PaymentProviderClient,
  type ProviderPayment,
  outcomeOfPayment,
} from '../provider/payment-provider.client';
import { periodColumns, periodOfCycle, retryAt } from '../subscriptions/billing-period';
import { upgradeChange } from '../subscriptions/plan-rules';
import type { SubscriptionRow } from '../subscriptions/subscription';
import { SubscriptionEvents } from '../subscriptions/subscription-events';
import { SubscriptionsRepository } from '../subscriptions/subscriptions.repository';
import type { PaymentAttemptRow } from './payment-attempts.repository';
import { PaymentAttemptsRepository } from './payment-attempts.repository';

const paymentOutcomes = new Counter({
  name: 'billing_payment_outcomes_total',
  help: 'Charges by kind (first, renewal, upgrade) and outcome (succeeded, failed, unknown = operator alert)',
  labelNames: ['kind', 'outcome'],
});

/** A charge outcome the provider decided (the charge response, a look-up, a webhook, or a replay). */
export type DecidedCharge = Exclude<ChargeOutcome, { kind: 'unknown' }>;

/**
 * Toss keeps an Idempotency-Key 15 days from its first request (guides/using-api/idempotency-key);
 * past that, the same key would be a new request. A charge is re-sent under its key only within
 * this window, measured from the attempt's creation (never after its first send), a day short of
 * the provider's 15 for clocks and slow first sends.
 */
export const IDEMPOTENCY_WINDOW_MS = 14 * 86_400_000;

/** The attempt may be sent again under its Idempotency-Key at `now`. */
export function withinIdempotencyWindow(createdAt: Date, now: Date): boolean {
  return now.getTime() - createdAt.getTime() < IDEMPOTENCY_WINDOW_MS;
}

const paymentChecks = new Counter({
  name: 'billing_payment_checks_total',
  help: 'Look-ups of pending charges, by what the provider said (found, not_found, undecided, failed)',
  labelNames: ['result'],
});

export interface Settlement {
  attempt: PaymentAttemptRow;
  subscription: SubscriptionRow;
  /** False when the attempt had already been settled (a redelivery or a late answer). */
  applied: boolean;
}

/**
 * Charges an attempt and applies what the provider decided to the attempt and its subscription,
 * exactly once: the attempt row is locked and only a `pending` one changes, so the charge answer,
 * a webhook and a re-sent charge may arrive in any order and in any number.
 */
@Injectable()
export class PaymentsService {
  private readonly logger = new Logger(PaymentsService.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly provider: PaymentProviderClient,
    private readonly billingKeys: BillingKeysRepository,
    private readonly subscriptions: SubscriptionsRepository,
    private readonly attempts: PaymentAttemptsRepository,
    private readonly events: SubscriptionEvents,
  ) {}

  /**
   * Sends the attempt's charge (again, if it was sent before: same order id, same Idempotency-Key)
   * and settles it. Returns null while the outcome is unknown; the attempt then stays pending.
   */
  async charge(attempt: PaymentAttemptRow, subscription: SubscriptionRow): Promise<Settlement | null> {
    const key = await this.billingKeys.reveal(this.dataSource.manager, subscription.billing_key_id);
    const outcome: ChargeOutcome = key
      ? await this.provider.charge(key.billingKey, {
          customerKey: key.customerKey,
          amount: attempt.amount_krw,
          orderId: attempt.order_id,
          orderName: attempt.order_name,
        })
      : {
          kind: 'rejected',
          status: 404,
          code: 'BILLING_KEY_DELETED',
          message: 'The card on file was removed.',
        };
    if (outcome.kind === 'unknown') {
      paymentOutcomes.inc({ kind: kindOf(attempt), outcome: 'unknown' });
      this.logger.error(
        {
          alert: 'payment_outcome_unknown',
          subscription_id: subscription.id,
          order_id: attempt.order_id,
          reason: outcome.reason,
        },
        'charge outcome unknown; the attempt stays pending until the provider confirms it',
      );
      return null;
    }
    return this.settle(attempt.order_id, outcome);
  }

  /**
   * Settles a pending attempt by asking the provider what became of its order (docs/behaviour.md,
   * "Reading a charge's outcome"): a payment found decides it (DONE: approved; ABORTED, EXPIRED:
   * rejected); none found means the charge never happened, and it is sent again under the same
   * order id and Idempotency-Key, within the key's lifetime at the provider and only while the
   * subscription still expects it. Returns null while the outcome stays unknown; never charges
   * twice (the order id is the provider's guard) and never decides on a failed look-up.
   */
  async check(
    attempt: PaymentAttemptRow,
    subscription: SubscriptionRow,
    now = new Date(),
  ): Promise<Settlement | null> {
    let payment: ProviderPayment | null;
    try {
      payment = await this.provider.getPaymentByOrderId(attempt.order_id);
    } catch (error) {
      paymentChecks.inc({ result: 'failed' });
      this.logger.warn(
        { order_id: attempt.order_id, reason: error instanceof Error ? error.message : 'unknown' },
        'the payment look-up failed; it is tried again later',
      );
      return null;
    }
    if (payment) {
      const outcome = outcomeOfPayment(payment);
      paymentChecks.inc({ result: outcome ? 'found' : 'undecided' });
      if (!outcome || outcome.kind === 'unknown') return null;
      if (outcome.kind === 'approved' && payment.totalAmount !== attempt.amount_krw) {
        // The money moved as the provider says; settle it, and have someone look at the difference.
        this.logger.error(
          {
            alert: 'payment_amount_mismatch',
            order_id: attempt.order_id,
            expected_krw: attempt.amount_krw,
            charged_krw: payment.totalAmount,
          },
          'the provider approved another amount than the attempt asked for',
        );
      }
      return this.settle(attempt.order_id, outcome);
    }
    paymentChecks.inc({ result: 'not_found' });
    if (!expectsCharge(subscription)) {
      // Nothing was charged and nothing is owed any more: close the attempt rather than charge it.
      return this.settle(attempt.order_id, {
        kind: 'rejected',
        status: 404,
        code: 'NOT_CHARGED',
        message: 'The charge never reached the provider and the subscription no longer expects it.',
      });
    }
    if (!withinIdempotencyWindow(attempt.created_at, now)) {
      this.logger.error(
        {
          alert: 'payment_unsettled_past_idempotency',
          subscription_id: subscription.id,
          order_id: attempt.order_id,
        },
        'a pending charge the provider has no record of is past its Idempotency-Key lifetime; not re-sent',
      );
      return null;
    }
    return this.charge(attempt, subscription);
  }

  /**
   * Applies a decided outcome; null when the order id is not one of ours. `within`: the caller's
   * transaction, when the outcome must commit with the caller's own writes (a savepoint in it).
   */
  async settle(
    orderId: string,
    outcome: DecidedCharge,
    within: EntityManager = this.dataSource.manager,
  ): Promise<Settlement | null> {
    return within.transaction(async (manager) => {
      const attempt = await this.attempts.lockByOrderId(manager, orderId);
      if (!attempt) return null;
      const subscription = await this.subscriptions.lock(manager, attempt.subscription_id);
      if (!subscription) throw new Error(`payment attempt ${attempt.id} has no subscription`);
      if (attempt.status !== 'pending') {
        const agrees = (attempt.status === 'succeeded') === (outcome.kind === 'approved');
        if (!agrees) {
          this.logger.error(
            {
              alert: 'payment_outcome_conflict',
              order_id: orderId,
              recorded: attempt.status,
              reported: outcome.kind,
            },
            'the provider reports another outcome than the one recorded; the first answer is kept',
          );
        }
        return { attempt, subscription, applied: false };
      }
      paymentOutcomes.inc({
        kind: kindOf(attempt),
        outcome: outcome.kind === 'approved' ? 'succeeded' : 'failed',
      });
      return outcome.kind === 'approved'
        ? this.applySuccess(manager, attempt, subscription, outcome)
        : this.applyRejection(manager, attempt, subscription, outcome);
    });
  }

  private async applySuccess(
    manager: EntityManager,
    pending: PaymentAttemptRow,
    subscription: SubscriptionRow,
    outcome: Extract<DecidedCharge, { kind: 'approved' }>,
  ): Promise<Settlement> {
    const attempt = await this.attempts.markSucceeded(
      manager,
      pending.id,
      outcome.paymentKey,
      outcome.approvedAt,
      outcome.receiptUrl ?? null,
    );
    const now = new Date();
    if (attempt.purpose === 'upgrade') return this.applyUpgrade(manager, attempt, subscription, now);
    if (subscription.status === 'pending') {
      // docs/behaviour.md §3.2: period start = now; the approval time when the answer comes late (webhook, re-send).
      const anchor = new Date(Math.min(outcome.approvedAt.getTime(), now.getTime()));
      const period = periodOfCycle(anchor, 1);
      const active = await this.subscriptions.update(
        manager,
        subscription.id,
        {
          status: 'active',
          cycle_count: 1,
          billing_anchor_at: anchor,
          ...periodColumns(period),
        },
        now,
      );
      await this.events.started(manager, active, attempt);
      return { attempt, subscription: active, applied: true };
    }
    if (isRenewalOf(attempt, subscription)) {
      const period = periodOfCycle(subscription.billing_anchor_at!, attempt.cycle);
      const renewed = await this.subscriptions.update(
        manager,
        subscription.id,
        {
          status: 'active',
          cycle_count: attempt.cycle,
          ...periodColumns(period),
        },
        now,
      );
      await this.events.paymentSucceeded(manager, renewed, attempt);
      return { attempt, subscription: renewed, applied: true };
    }
    this.logger.error(
      {
        alert: 'payment_for_inactive_subscription',
        subscription_id: subscription.id,
        status: subscription.status,
        order_id: attempt.order_id,
      },
      'a charge went through for a subscription that no longer expects it; refund at the provider',
    );
    return { attempt, subscription, applied: true };
  }

  /**
   * An approved upgrade charge puts its plan in force now (plan-rules upgradeChange). One that
   * landed after the subscription ended, or that a higher plan overtook, changes nothing and is
   * refunded by hand, as any charge a subscription no longer expects.
   */
  private async applyUpgrade(
    manager: EntityManager,
    attempt: PaymentAttemptRow,
    subscription: SubscriptionRow,
    now: Date,
  ): Promise<Settlement> {
    const change = upgradeChange(subscription, attempt.plan_code);
    if (!change) {
      this.logger.error(
        {
          alert: 'payment_for_inactive_subscription',
          subscription_id: subscription.id,
          status: subscription.status,
          order_id: attempt.order_id,
        },
        'an upgrade charge went through that no longer applies; refund at the provider',
      );
      return { attempt, subscription, applied: true };
    }
    const upgraded = await this.subscriptions.update(manager, subscription.id, change, now);
    await this.events.planUpgraded(manager, upgraded, subscription.plan_code);
    return { attempt, subscription: upgraded, applied: true };
  }

  private async applyRejection(
    manager: EntityManager,
    pending: PaymentAttemptRow,
    subscription: SubscriptionRow,
    outcome: Extract<DecidedCharge, { kind: 'rejected' }>,
  ): Promise<Settlement> {
    const attempt = await this.attempts.markFailed(manager, pending.id, outcome);
    // A declined upgrade is dropped: the plan in force stays, nothing else changes.
    if (attempt.purpose === 'upgrade') return { attempt, subscription, applied: true };
    const now = new Date();
    if (subscription.status === 'pending') {
      // The billing key stays: the user may try again with the same card or another one.
      const canceled = await this.subscriptions.end(manager, subscription.id, 'first_charge_rejected', now);
      return { attempt, subscription: canceled, applied: true };
    }
    if (!isRenewalOf(attempt, subscription)) return { attempt, subscription, applied: true };
    // docs/decisions/past-due.md: retries 1, 3 and 5 days after the renewal was due, then the end.
    const retry = retryAt(subscription.current_period_end!, attempt.retry_number + 1);
    if (retry === null) {
      const ended = await this.subscriptions.end(manager, subscription.id, 'payment_failed', now);
      await this.events.ended(manager, ended, 'payment_failed');
      return { attempt, subscription: ended, applied: true };
    }
    const pastDue = await this.subscriptions.update(
      manager,
      subscription.id,
      { status: 'past_due', next_billing_at: retry },
      now,
    );
    return { attempt, subscription: pastDue, applied: true };
  }
}

/** The subscription would still take this charge: not ended. */
function expectsCharge(subscription: SubscriptionRow): boolean {
  return (
    subscription.status === 'pending' ||
    subscription.status === 'active' ||
    subscription.status === 'past_due'
  );
}

function kindOf(attempt: PaymentAttemptRow): 'first' | 'renewal' | 'upgrade' {
  if (attempt.purpose === 'upgrade') return 'upgrade';
  return attempt.cycle === 1 ? 'first' : 'renewal';
}

/** The attempt pays the cycle after the current one of a running subscription. */
function isRenewalOf(attempt: PaymentAttemptRow, subscription: SubscriptionRow): boolean {
  return (
    attempt.purpose !== 'upgrade' &&
    (subscription.status === 'active' || subscription.status === 'past_due') &&
    subscription.billing_anchor_at !== null &&
    attempt.cycle === subscription.cycle_count + 1
  );
}
