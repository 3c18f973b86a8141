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
import { SubscriptionsRepository } from './subscriptions.repository';

export interface PlanChangeView {
  /** The plan in force now. */
  plan: PaidPlanCode;
  /** The plan that takes over at period end, if any (FREE when the subscription ends then). */
  pending: PlanCode | null;
  /** `now` for an upgrade, the period end for a downgrade, null when nothing changed. */
  effective_at: string | null;
  subscription: SubscriptionView;
}

export interface CancelView {
  canceled_at_period_end: boolean;
  /** End of the paid period: the plan stays in force until then. */
  active_until: string | null;
  subscription: SubscriptionView;
}

/**
 * The subscription change rules (spec appendix, §3.2, §4.7-4.8): only the payer, only while
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
          effective_at: periodEnd(canceled),
          subscription: toSubscriptionView(canceled),
        };
      }
      if (target === current) {
        return {
          plan: current,
          pending: pendingOf(subscription),
          effective_at: null,
          subscription: toSubscriptionView(subscription),
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
        const upgraded = await this.subscriptions.update(
          manager,
          subscription.id,
          { plan_code: target, pending_downgrade_to: null },
          new Date(),
        );
        await this.events.planUpgraded(manager, upgraded, current);
        return {
          plan: target,
          pending: pendingOf(upgraded),
          effective_at: 'now',
          subscription: toSubscriptionView(upgraded),
        };
      }
      let scheduled = subscription;
      if (subscription.pending_downgrade_to !== target) {
        scheduled = await this.subscriptions.update(
          manager,
          subscription.id,
          { pending_downgrade_to: target },
          new Date(),
        );
        await this.events.downgradeScheduled(manager, scheduled, target);
      }
      return {
        plan: current,
        pending: pendingOf(scheduled),
        effective_at: periodEnd(scheduled),
        subscription: toSubscriptionView(scheduled),
      };
    });
  }

  /** Cancel at period end; a pending downgrade stays recorded but the cancel takes priority. */
  cancel(identity: InternalIdentity, id: string): Promise<CancelView> {
    return this.asPayer(identity, id, async (manager, subscription, userId) => {
      const canceled = await this.cancelAtPeriodEnd(manager, subscription, userId);
      return {
        canceled_at_period_end: true,
        active_until: periodEnd(canceled),
        subscription: toSubscriptionView(canceled),
      };
    });
  }

  uncancel(identity: InternalIdentity, id: string): Promise<CancelView> {
    return this.asPayer(identity, id, async (manager, subscription, userId) => {
      let kept = subscription;
      if (subscription.cancel_at_period_end) {
        kept = await this.subscriptions.update(
          manager,
          subscription.id,
          { cancel_at_period_end: false },
          new Date(),
        );
        await this.events.uncanceled(manager, kept, userId);
      }
      return {
        canceled_at_period_end: false,
        active_until: periodEnd(kept),
        subscription: toSubscriptionView(kept),
      };
    });
  }

  /** A second cancel while one is scheduled changes nothing and emits nothing. */
  private async cancelAtPeriodEnd(
    manager: EntityManager,
    subscription: SubscriptionRow,
    userId: string,
  ): Promise<SubscriptionRow> {
    if (subscription.cancel_at_period_end) return subscription;
    const canceled = await this.subscriptions.update(
      manager,
      subscription.id,
      { cancel_at_period_end: true },
      new Date(),
    );
    await this.events.canceled(manager, canceled, userId);
    return canceled;
  }

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
