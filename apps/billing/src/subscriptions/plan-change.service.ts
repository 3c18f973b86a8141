import { Injectable } from '@nestjs/common';
import { type InternalIdentity, type PlanCode, planRank } from '@lib/contracts';
import { requireUser } from '@lib/guild-access';
import { ConflictError, DomainError, NotFoundError } from '@lib/problem-details';
import { DataSource, type EntityManager } from 'typeorm';
import { BillingKeysRepository } from '../billing-keys/billing-keys.repository';
import {
  type PaidPlanCode,
  type SubscriptionRow,
  type SubscriptionView,
  toSubscriptionView,
} from './subscription';
import { SubscriptionEvents } from './subscription-events';
import { type SubscriptionChange, SubscriptionsRepository } from './subscriptions.repository';

export interface PlanChangeView {
  /** The plan in force now. */
  plan: PaidPlanCode;
  /** The plan that takes over at period end, if any (FREE when the subscription ends then). */
  pending: PlanCode | null;
  /** `now` for an upgrade, the period end for a downgrade, null when nothing changed. */
  effective_at: string | null;
  /** A change to FREE is a cancel: the downgrade it replaced, if one was scheduled (else null). */
  dropped_pending_downgrade_to: PaidPlanCode | null;
  subscription: SubscriptionView;
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
 * The subscription change rules (docs/behaviour.md appendix, §3.2, §4.7-4.8): only the payer, only while
 * `active`, upgrades at once without a charge, downgrades and cancels at period end. Each change is
 * one transaction with its event, under the subscription's row lock.
 */
@Injectable()
export class PlanChangeService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly subscriptions: SubscriptionsRepository,
    private readonly billingKeys: BillingKeysRepository,
    private readonly events: SubscriptionEvents,
  ) {}

  changePlan(identity: InternalIdentity, id: string, target: PlanCode): Promise<PlanChangeView> {
    return this.asPayer(identity, id, async (manager, subscription, userId) => {
      const current = subscription.plan_code;
      if (target === 'FREE') {
        const canceled = await this.cancelAtPeriodEnd(manager, subscription, userId);
        return {
          plan: current,
          pending: 'FREE',
          effective_at: periodEnd(canceled.subscription),
          dropped_pending_downgrade_to: canceled.droppedDowngrade,
          subscription: await this.view(manager, canceled.subscription),
        };
      }
      if (target === current) {
        return {
          plan: current,
          pending: pendingOf(subscription),
          effective_at: null,
          dropped_pending_downgrade_to: null,
          subscription: await this.view(manager, subscription),
        };
      }
      if (planRank(target) > planRank(current)) {
        const key = await this.billingKeys.get(manager, subscription.billing_key_id);
        if (key?.status !== 'active') {
          throw new DomainError(
            'ErrBillingKeyMissing',
            422,
            'No card on file',
            'The card for this subscription was removed. Register a card again before upgrading.',
          );
        }
        const upgraded = await this.updateNow(manager, subscription, {
          plan_code: target,
          pending_downgrade_to: null,
        });
        await this.events.planUpgraded(manager, upgraded, current);
        return {
          plan: target,
          pending: pendingOf(upgraded),
          effective_at: 'now',
          dropped_pending_downgrade_to: null,
          subscription: await this.view(manager, upgraded),
        };
      }
      if (subscription.cancel_at_period_end) {
        // The cancel takes priority over any downgrade; scheduling one under it would be ignored.
        throw new ConflictError(
          'ErrCancelScheduled',
          'The subscription ends at period end. Withdraw the cancel before choosing a lower plan.',
          { active_until: periodEnd(subscription) },
        );
      }
      let scheduled = subscription;
      if (subscription.pending_downgrade_to !== target) {
        scheduled = await this.updateNow(manager, subscription, { pending_downgrade_to: target });
        await this.events.downgradeScheduled(manager, scheduled, target);
      }
      return {
        plan: current,
        pending: pendingOf(scheduled),
        effective_at: periodEnd(scheduled),
        dropped_pending_downgrade_to: null,
        subscription: await this.view(manager, scheduled),
      };
    });
  }

  /**
   * Withdraws a scheduled downgrade before period end: the current plan renews as it is, and
   * `PlanDowngradeCanceled` says who dropped which downgrade. Nothing scheduled changes nothing and
   * emits nothing (a repeated click, or the period end that applied it already).
   */
  dropPendingDowngrade(identity: InternalIdentity, id: string): Promise<PlanChangeView> {
    return this.asPayer(identity, id, async (manager, subscription, userId) => {
      const dropped = subscription.pending_downgrade_to;
      let kept = subscription;
      if (dropped) {
        kept = await this.updateNow(manager, subscription, { pending_downgrade_to: null });
        await this.events.downgradeCanceled(manager, kept, userId, dropped);
      }
      return {
        plan: kept.plan_code,
        pending: pendingOf(kept),
        effective_at: null,
        dropped_pending_downgrade_to: dropped,
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
      let kept = subscription;
      if (subscription.cancel_at_period_end) {
        kept = await this.updateNow(manager, subscription, { cancel_at_period_end: false });
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
    if (subscription.cancel_at_period_end) return { subscription, droppedDowngrade: null };
    const droppedDowngrade = subscription.pending_downgrade_to;
    const canceled = await this.updateNow(manager, subscription, {
      cancel_at_period_end: true,
      pending_downgrade_to: null,
    });
    await this.events.canceled(manager, canceled, userId, droppedDowngrade);
    return { subscription: canceled, droppedDowngrade };
  }

  /** The payer's change, in force from now (its event is dated by the row's new `updated_at`). */
  private updateNow(
    manager: EntityManager,
    subscription: SubscriptionRow,
    change: SubscriptionChange,
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
      if (!subscription) throw new NotFoundError('ErrSubscriptionNotFound', 'Subscription');
      if (subscription.payer_user_id !== user.user_id) {
        throw new DomainError(
          'ErrNotPayer',
          403,
          'Forbidden',
          'Only the payment owner may change this subscription.',
        );
      }
      if (subscription.status !== 'active') {
        throw new ConflictError(
          'ErrSubscriptionNotActive',
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
