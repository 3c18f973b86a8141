import { Injectable } from '@nestjs/common';
import type { InternalIdentity, PlanCode, PlanDefinition } from '@lib/contracts';
import { EntitlementsClient } from '@lib/entitlements';
import { requireUser } from '@lib/guild-access';
import { DataSource, type EntityManager } from 'typeorm';
import { BillingSettings } from '../billing-settings';
import { BillingKeysRepository } from '../billing-keys/billing-keys.repository';
import { type PaymentAttemptRow, PaymentAttemptsRepository } from '../payments/payment-attempts.repository';
import { PaymentsService } from '../payments/payments.service';
import {
  cancelChange,
  decidePlanChange,
  dropDowngradeChange,
  type PlanColumnsChange,
  uncancelChange,
} from './plan-rules';
import { upgradeQuote } from './proration';
import {
  type PaidPlanCode,
  type SubscriptionRow,
  type SubscriptionView,
  toSubscriptionView,
} from './subscription';
import { SubscriptionEvents } from './subscription-events';
import { SubscriptionErrors } from './subscriptions.errors';
import { type SubscriptionChange, SubscriptionsRepository } from './subscriptions.repository';

export interface PlanChangeView {
  /** The plan in force now. */
  plan: PaidPlanCode;
  /** The plan that takes over at period end, if any (FREE when the subscription ends then). */
  pending: PlanCode | null;
  /**
   * `now` for an upgrade whose charge was approved, the period end for a downgrade, null when
   * nothing changed (yet: an upgrade whose charge is unanswered).
   */
  effective_at: string | null;
  /** A change to FREE is a cancel: the downgrade it replaced, if one was scheduled (else null). */
  dropped_pending_downgrade_to: PaidPlanCode | null;
  /** An upgrade's prorated charge (null for any other change). */
  payment: UpgradePaymentView | null;
  subscription: SubscriptionView;
}

/** The charge an upgrade made: `pending` while the provider's answer is unknown (HTTP 202). */
export interface UpgradePaymentView {
  order_id: string;
  plan: PaidPlanCode;
  amount_krw: number;
  status: 'succeeded' | 'pending';
  detail: string | null;
}

/** The answer of a plan change: 200, or 202 while an upgrade's charge is unanswered. */
export interface PlanChangeResult {
  status: 200 | 202;
  body: PlanChangeView;
}

/** An upgrade's pending charge, written under the row lock and sent after it is released. */
interface UpgradeCharge {
  attempt: PaymentAttemptRow;
  subscription: SubscriptionRow;
}

export interface CancelView {
  canceled_at_period_end: boolean;
  /** End of the paid period: the plan stays in force until then. */
  active_until: string | null;
  /**
   * The downgrade that was scheduled and no longer happens: a cancel takes priority (docs/behaviour.md appendix
   * rule 4), and an uncancel does not bring it back. Null when none was scheduled.
   */
  dropped_pending_downgrade_to: PaidPlanCode | null;
  subscription: SubscriptionView;
}

/** What a cancel did: the subscription after it, and the pending downgrade it cleared. */
interface CancelOutcome {
  subscription: SubscriptionRow;
  droppedDowngrade: PaidPlanCode | null;
}

/**
 * The subscription change rules (docs/behaviour.md appendix, §3.2, §4.7-4.8; the decisions are
 * plan-rules.ts): only the payer, only while `active`; an upgrade charges the prorated difference on
 * the card on file and takes effect when that charge is approved (README: rule 2 replaced);
 * downgrades and cancels at period end. Each change is one transaction with its event, under the
 * subscription's row lock; an upgrade's charge is sent after that lock is released and settled by
 * PaymentsService like every other charge.
 */
@Injectable()
export class PlanChangeService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly subscriptions: SubscriptionsRepository,
    private readonly billingKeys: BillingKeysRepository,
    private readonly events: SubscriptionEvents,
    private readonly attempts: PaymentAttemptsRepository,
    private readonly payments: PaymentsService,
    private readonly entitlements: EntitlementsClient,
    private readonly settings: BillingSettings,
  ) {}

  async changePlan(identity: InternalIdentity, id: string, target: PlanCode): Promise<PlanChangeResult> {
    // Prices come from licensing's catalogue, read before the row lock is taken.
    const plans = target === 'FREE' ? [] : await this.entitlements.plans();
    const step = await this.asPayer(
      identity,
      id,
      async (manager, subscription, userId): Promise<PlanChangeView | UpgradeCharge> => {
        const current = subscription.plan_code;
        const pending = await this.attempts.pendingOf(manager, subscription.id);
        const decision = decidePlanChange(subscription, target, pending !== null);
        if (decision.kind === 'cancel') {
          const canceled = await this.cancelAtPeriodEnd(manager, subscription, userId);
          return {
            plan: current,
            pending: 'FREE',
            effective_at: periodEnd(canceled.subscription),
            dropped_pending_downgrade_to: canceled.droppedDowngrade,
            payment: null,
            subscription: await this.view(manager, canceled.subscription),
          };
        }
        if (decision.kind === 'same') {
          return {
            plan: current,
            pending: pendingOf(subscription),
            effective_at: null,
            dropped_pending_downgrade_to: null,
            payment: null,
            subscription: await this.view(manager, subscription),
          };
        }
        if (decision.kind === 'refused' && decision.reason === 'payment_pending') {
          throw SubscriptionErrors.paymentPending(
            'A payment of this subscription is still being processed. Try again once it is settled.',
            { order_id: pending!.order_id },
          );
        }
        if (decision.kind === 'upgrade') {
          return this.startUpgrade(manager, subscription, decision.to, plans);
        }
        if (decision.kind === 'refused') {
          // The cancel takes priority over any downgrade; scheduling one under it would be ignored.
          throw SubscriptionErrors.cancelScheduled(
            'The subscription ends at period end. Withdraw the cancel before choosing a lower plan.',
            { active_until: periodEnd(subscription) },
          );
        }
        let scheduled = subscription;
        if (decision.change) {
          scheduled = await this.updateNow(manager, subscription, decision.change);
          await this.events.downgradeScheduled(manager, scheduled, target);
        }
        return {
          plan: current,
          pending: pendingOf(scheduled),
          effective_at: periodEnd(scheduled),
          dropped_pending_downgrade_to: null,
          payment: null,
          subscription: await this.view(manager, scheduled),
        };
      },
    );
    if (!('attempt' in step)) return { status: 200, body: step };
    return this.chargeUpgrade(step);
  }

  /**
   * Writes the upgrade's pending charge: the prorated difference from the plan in force for the
   * rest of the current period (proration.ts), on the card on file. The pending attempt is also the
   * claim that keeps a renewal, or a second upgrade, from charging the card meanwhile.
   */
  private async startUpgrade(
    manager: EntityManager,
    subscription: SubscriptionRow,
    target: PaidPlanCode,
    plans: PlanDefinition[],
  ): Promise<UpgradeCharge> {
    const key = await this.billingKeys.get(manager, subscription.billing_key_id);
    if (key?.status !== 'active') {
      throw SubscriptionErrors.billingKeyMissing();
    }
    const priceOf = (code: PaidPlanCode): PlanDefinition => {
      const plan = plans.find((candidate) => candidate.code === code);
      if (!plan) throw new Error(`no plan ${code} in the catalogue`);
      return plan;
    };
    const to = priceOf(target);
    const quote = upgradeQuote(
      priceOf(subscription.plan_code).price_krw,
      to.price_krw,
      { start: subscription.current_period_start!, end: subscription.current_period_end! },
      new Date(),
    );
    const previous = await this.attempts.latestOfCycle(
      manager,
      subscription.id,
      subscription.cycle_count,
      'upgrade',
    );
    const attempt = await this.attempts.insertPending(manager, {
      subscriptionId: subscription.id,
      purpose: 'upgrade',
      cycle: subscription.cycle_count,
      retryNumber: previous ? previous.retry_number + 1 : 0,
      planCode: target,
      amountKrw: quote.amount_krw,
      orderName: this.settings.orderName(`${to.name} upgrade`, subscription.guild_name),
    });
    return { attempt, subscription };
  }

  /**
   * Sends the upgrade's charge and answers its outcome: approved, the plan has changed (PaymentsService
   * applied it); declined, a 402 with the provider's reason and nothing changed; unknown, 202 and the
   * upgrade waits for the look-up that settles the attempt.
   */
  private async chargeUpgrade({ attempt, subscription }: UpgradeCharge): Promise<PlanChangeResult> {
    const settlement = await this.payments.charge(attempt, subscription);
    const payment = (status: UpgradePaymentView['status'], detail: string | null): UpgradePaymentView => ({
      order_id: attempt.order_id,
      plan: attempt.plan_code,
      amount_krw: attempt.amount_krw,
      status,
      detail,
    });
    if (!settlement) {
      const now = (await this.subscriptions.get(subscription.id)) ?? subscription;
      return {
        status: 202,
        body: {
          plan: now.plan_code,
          pending: pendingOf(now),
          effective_at: null,
          dropped_pending_downgrade_to: null,
          payment: payment(
            'pending',
            'The payment is being processed. The new plan takes effect as soon as the provider confirms it.',
          ),
          subscription: await this.view(this.dataSource.manager, now),
        },
      };
    }
    if (settlement.attempt.status === 'failed') {
      throw SubscriptionErrors.paymentRejected(
        `The upgrade was not charged: ${settlement.attempt.failure_message ?? 'the card was declined'}. The plan has not changed.`,
        {
          subscription_id: subscription.id,
          order_id: attempt.order_id,
          amount_krw: attempt.amount_krw,
          provider_code: settlement.attempt.failure_code,
          provider_message: settlement.attempt.failure_message,
        },
      );
    }
    const upgraded = settlement.subscription;
    return {
      status: 200,
      body: {
        plan: upgraded.plan_code,
        pending: pendingOf(upgraded),
        effective_at: upgraded.plan_code === attempt.plan_code ? 'now' : null,
        dropped_pending_downgrade_to: null,
        payment: payment('succeeded', null),
        subscription: await this.view(this.dataSource.manager, upgraded),
      },
    };
  }

  /**
   * Withdraws a scheduled downgrade before period end: the current plan renews as it is, and
   * `PlanDowngradeCanceled` says who dropped which downgrade. Nothing scheduled changes nothing and
   * emits nothing (a repeated click, or the period end that applied it already).
   */
  dropPendingDowngrade(identity: InternalIdentity, id: string): Promise<PlanChangeView> {
    return this.asPayer(identity, id, async (manager, subscription, userId) => {
      const dropped = subscription.pending_downgrade_to;
      const change = dropDowngradeChange(subscription);
      let kept = subscription;
      if (change && dropped) {
        kept = await this.updateNow(manager, subscription, change);
        await this.events.downgradeCanceled(manager, kept, userId, dropped);
      }
      return {
        plan: kept.plan_code,
        pending: pendingOf(kept),
        effective_at: null,
        dropped_pending_downgrade_to: dropped,
        payment: null,
        subscription: await this.view(manager, kept),
      };
    });
  }

  /** Cancel at period end. It takes priority over a pending downgrade, which is cleared. */
  cancel(identity: InternalIdentity, id: string): Promise<CancelView> {
    return this.asPayer(identity, id, async (manager, subscription, userId) => {
      const canceled = await this.cancelAtPeriodEnd(manager, subscription, userId);
      return {
        canceled_at_period_end: true,
        active_until: periodEnd(canceled.subscription),
        dropped_pending_downgrade_to: canceled.droppedDowngrade,
        subscription: await this.view(manager, canceled.subscription),
      };
    });
  }

  uncancel(identity: InternalIdentity, id: string): Promise<CancelView> {
    return this.asPayer(identity, id, async (manager, subscription, userId) => {
      const change = uncancelChange(subscription);
      let kept = subscription;
      if (change) {
        kept = await this.updateNow(manager, subscription, change);
        await this.events.uncanceled(manager, kept, userId);
      }
      return {
        canceled_at_period_end: false,
        active_until: periodEnd(kept),
        dropped_pending_downgrade_to: null,
        subscription: await this.view(manager, kept),
      };
    });
  }

  /**
   * Schedules the cancel and clears a pending downgrade in the same change: the cancel takes
   * priority, and an uncancel later must not revive a downgrade the payer replaced with a cancel.
   * A second cancel while one is scheduled changes nothing and emits nothing.
   */
  private async cancelAtPeriodEnd(
    manager: EntityManager,
    subscription: SubscriptionRow,
    userId: string,
  ): Promise<CancelOutcome> {
    const change = cancelChange(subscription);
    if (!change) return { subscription, droppedDowngrade: null };
    const droppedDowngrade = subscription.pending_downgrade_to;
    const canceled = await this.updateNow(manager, subscription, change);
    await this.events.canceled(manager, canceled, userId, droppedDowngrade);
    return { subscription: canceled, droppedDowngrade };
  }

  /** The payer's change, in force from now (its event is dated by the row's new `updated_at`). */
  private updateNow(
    manager: EntityManager,
    subscription: SubscriptionRow,
    change: SubscriptionChange | PlanColumnsChange,
  ): Promise<SubscriptionRow> {
    return this.subscriptions.update(manager, subscription.id, change, new Date());
  }

  private async view(manager: EntityManager, subscription: SubscriptionRow): Promise<SubscriptionView> {
    const card = await this.billingKeys.get(manager, subscription.billing_key_id);
    return toSubscriptionView(subscription, card!);
  }

  /**
   * The route has let through only the payer and managers of the guild (anyone else got the 404 of
   * a missing subscription); of those, a manager who is not the payer is refused here (docs/behaviour.md §5.3).
   */
  private asPayer<T>(
    identity: InternalIdentity,
    id: string,
    change: (manager: EntityManager, subscription: SubscriptionRow, userId: string) => Promise<T>,
  ): Promise<T> {
    const user = requireUser(identity);
    return this.dataSource.transaction(async (manager) => {
      const subscription = await this.subscriptions.lock(manager, id);
      if (!subscription) throw SubscriptionErrors.notFound();
      if (subscription.payer_user_id !== user.user_id) {
        throw SubscriptionErrors.notPayer();
      }
      if (subscription.status !== 'active') {
        throw SubscriptionErrors.notActive(
          subscription.status === 'past_due'
            ? 'The last payment failed. Resolve the payment problem first.'
            : `The subscription is ${subscription.status}; only an active subscription can be changed.`,
          { status_now: subscription.status },
        );
      }
      return change(manager, subscription, user.user_id);
    });
  }
}

function periodEnd(subscription: SubscriptionRow): string | null {
  return subscription.current_period_end?.toISOString() ?? null;
}

function pendingOf(subscription: SubscriptionRow): PlanCode | null {
  return subscription.cancel_at_period_end ? 'FREE' : subscription.pending_downgrade_to;
}
