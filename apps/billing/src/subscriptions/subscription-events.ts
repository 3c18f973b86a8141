import { Injectable } from '@nestjs/common';
import type { EVENT_PRODUCERS, EventPayloads, EventType, PlanCode } from '@lib/contracts';
import { OutboxWriter } from '@lib/outbox';
import type { EntityManager } from 'typeorm';
import type { BillingKeyRow } from '../billing-keys/billing-keys.repository';
import type { PaymentAttemptRow } from '../payments/payment-attempts.repository';
import { renewalGraceUntil } from './billing-period';
import type { SubscriptionRow } from './subscription';

/** The events billing produces. */
type BillingEventType = {
  [K in EventType]: (typeof EVENT_PRODUCERS)[K] extends 'billing' ? K : never;
}[EventType];

/**
 * Billing's domain events (docs/behaviour.md §6), written in the transaction of the change they announce.
 * `occurred_at` is the subscription's `updated_at` of that change: licensing orders the events of a
 * guild by it, so it must come from the state change, not from when the event was built.
 */
@Injectable()
export class SubscriptionEvents {
  constructor(private readonly outbox: OutboxWriter) {}

  billingKeyIssued(manager: EntityManager, subscription: SubscriptionRow, cardLast4: string) {
    return this.append(manager, subscription, 'BillingKeyIssued', {
      billing_key_id: subscription.billing_key_id,
      payer_user_id: subscription.payer_user_id,
      subscription_id: subscription.id,
      card_last4: cardLast4,
    });
  }

  /** The first charge went through: `SubscriptionStarted` and `PaymentSucceeded` together. */
  async started(manager: EntityManager, subscription: SubscriptionRow, attempt: PaymentAttemptRow) {
    const period = this.period(subscription);
    await this.append(manager, subscription, 'SubscriptionStarted', {
      subscription_id: subscription.id,
      license_id: subscription.license_id,
      guild_id: subscription.guild_id,
      payer_user_id: subscription.payer_user_id,
      ...this.recipient(subscription),
      plan_code: subscription.plan_code,
      amount_krw: attempt.amount_krw,
      current_period_start: period.start,
      current_period_end: period.end,
      next_billing_at: subscription.next_billing_at?.toISOString() ?? period.end,
      grace_until: this.graceUntil(subscription),
    });
    await this.paymentSucceeded(manager, subscription, attempt);
  }

  paymentSucceeded(manager: EntityManager, subscription: SubscriptionRow, attempt: PaymentAttemptRow) {
    return this.append(manager, subscription, 'PaymentSucceeded', {
      subscription_id: subscription.id,
      payment_attempt_id: attempt.id,
      order_id: attempt.order_id,
      amount_krw: attempt.amount_krw,
      cycle: attempt.cycle,
      retry_number: attempt.retry_number,
      provider_approved_at: (attempt.provider_approved_at ?? subscription.updated_at).toISOString(),
      plan_code: subscription.plan_code,
      ...this.renewal(subscription),
    });
  }

  planUpgraded(manager: EntityManager, subscription: SubscriptionRow, oldPlan: PlanCode) {
    return this.append(manager, subscription, 'PlanUpgraded', {
      subscription_id: subscription.id,
      license_id: subscription.license_id,
      payer_user_id: subscription.payer_user_id,
      ...this.recipient(subscription),
      old_plan_code: oldPlan,
      new_plan_code: subscription.plan_code,
      effective_at: subscription.updated_at.toISOString(),
      ...this.renewal(subscription),
    });
  }

  downgradeScheduled(manager: EntityManager, subscription: SubscriptionRow, target: PlanCode) {
    return this.append(manager, subscription, 'PlanDowngradeScheduled', {
      subscription_id: subscription.id,
      license_id: subscription.license_id,
      payer_user_id: subscription.payer_user_id,
      old_plan_code: subscription.plan_code,
      new_plan_code: target,
      effective_at: this.period(subscription).end,
    });
  }

  /** The payer dropped the scheduled downgrade to `dropped`: the plan in force renews as it is. */
  downgradeCanceled(
    manager: EntityManager,
    subscription: SubscriptionRow,
    requestedBy: string,
    dropped: PlanCode,
  ) {
    return this.append(manager, subscription, 'PlanDowngradeCanceled', {
      subscription_id: subscription.id,
      license_id: subscription.license_id,
      payer_user_id: subscription.payer_user_id,
      requested_by_user: requestedBy,
      plan_code: subscription.plan_code,
      dropped_plan_code: dropped,
      effective_at: this.period(subscription).end,
    });
  }

  downgraded(manager: EntityManager, subscription: SubscriptionRow, oldPlan: PlanCode) {
    return this.append(manager, subscription, 'PlanDowngraded', {
      subscription_id: subscription.id,
      license_id: subscription.license_id,
      old_plan_code: oldPlan,
      new_plan_code: subscription.plan_code,
      effective_at: this.period(subscription).end,
      ...this.renewal(subscription),
    });
  }

  canceled(
    manager: EntityManager,
    subscription: SubscriptionRow,
    requestedBy: string,
    droppedDowngrade: PlanCode | null,
  ) {
    return this.append(manager, subscription, 'SubscriptionCanceled', {
      subscription_id: subscription.id,
      license_id: subscription.license_id,
      cancel_at_period_end: true,
      effective_at: this.period(subscription).end,
      requested_by_user: requestedBy,
      ...this.recipient(subscription),
      plan_code: subscription.plan_code,
      dropped_pending_downgrade_to: droppedDowngrade,
    });
  }

  uncanceled(manager: EntityManager, subscription: SubscriptionRow, requestedBy: string) {
    return this.append(manager, subscription, 'SubscriptionUncanceled', {
      subscription_id: subscription.id,
      license_id: subscription.license_id,
      requested_by_user: requestedBy,
      plan_code: subscription.plan_code,
      ...this.renewal(subscription),
    });
  }

  /**
   * The payer entered a new card elsewhere: this subscription is charged on it from now on. The
   * subscription row itself does not change (it keeps its `billing_key_id`), so the event is dated
   * by the card's change.
   */
  cardChanged(
    manager: EntityManager,
    subscription: SubscriptionRow,
    card: BillingKeyRow & { updated_at: Date },
    previousLast4: string | null,
  ) {
    return this.append(
      manager,
      subscription,
      'SubscriptionCardChanged',
      {
        subscription_id: subscription.id,
        license_id: subscription.license_id,
        billing_key_id: card.id,
        payer_user_id: subscription.payer_user_id,
        ...this.recipient(subscription),
        plan_code: subscription.plan_code,
        card_company: card.card_company,
        card_last4: card.card_last4,
        previous_card_last4: previousLast4,
      },
      card.updated_at,
    );
  }

  ended(manager: EntityManager, subscription: SubscriptionRow, reason: 'period_end' | 'payment_failed') {
    return this.append(manager, subscription, 'SubscriptionCanceledPeriodEnd', {
      subscription_id: subscription.id,
      license_id: subscription.license_id,
      payer_user_id: subscription.payer_user_id,
      ...this.recipient(subscription),
      reason,
      plan_code: subscription.plan_code,
    });
  }

  /** Who the notifier DMs about the subscription, and the guild it names. */
  private recipient(subscription: SubscriptionRow): {
    payer_platform_user_id: string | null;
    guild_name: string;
  } {
    return {
      payer_platform_user_id: subscription.payer_platform_user_id,
      guild_name: subscription.guild_name,
    };
  }

  /** Until when the licence holds after this change: the period end, and the renewal's grace past it. */
  private renewal(subscription: SubscriptionRow): { current_period_end: string; grace_until: string | null } {
    return { current_period_end: this.period(subscription).end, grace_until: this.graceUntil(subscription) };
  }

  /** Null once a cancel is scheduled: the subscription will not renew, the licence ends at period end. */
  private graceUntil(subscription: SubscriptionRow): string | null {
    if (subscription.cancel_at_period_end) return null;
    return renewalGraceUntil(new Date(this.period(subscription).end)).toISOString();
  }

  private period(subscription: SubscriptionRow): { start: string; end: string } {
    if (!subscription.current_period_start || !subscription.current_period_end) {
      throw new Error(`subscription ${subscription.id} has no paid period yet`);
    }
    return {
      start: subscription.current_period_start.toISOString(),
      end: subscription.current_period_end.toISOString(),
    };
  }

  private async append<T extends BillingEventType>(
    manager: EntityManager,
    subscription: SubscriptionRow,
    type: T,
    payload: EventPayloads[T],
    occurredAt: Date = subscription.updated_at,
  ): Promise<void> {
    await this.outbox.append(manager, {
      type,
      aggregate_type: 'subscription',
      aggregate_id: subscription.id,
      guild_id: subscription.guild_id,
      occurred_at: occurredAt,
      payload,
    });
  }
}
