import { type PlanCode, planRank } from '@lib/contracts';
import type { PaidPlanCode, SubscriptionRow } from './subscription';

/**
 * The subscription change rules (docs/behaviour.md appendix, with rule 2 replaced: an upgrade is paid
 * for when it is made) as pure functions of the subscription's plan columns. PlanChangeService,
 * PaymentsService and the renewal answer call them; the property test in proration.property.spec.ts
 * drives the same functions through random months.
 */
export type PlanState = Pick<
  SubscriptionRow,
  'status' | 'plan_code' | 'pending_downgrade_to' | 'cancel_at_period_end'
>;

/** The columns a rule changes (a subset of SubscriptionChange). */
export interface PlanColumnsChange {
  plan_code?: PaidPlanCode;
  pending_downgrade_to?: PaidPlanCode | null;
  cancel_at_period_end?: boolean;
}

export type PlanChangeDecision =
  /** A change to FREE is a cancel at period end (rule 3). */
  | { kind: 'cancel' }
  /** The plan in force: nothing changes (rule 1). */
  | { kind: 'same' }
  /** A higher plan: charged now, in force once the charge is approved. */
  | { kind: 'upgrade'; from: PaidPlanCode; to: PaidPlanCode }
  /** A lower plan at period end; `change` is null when exactly that downgrade is scheduled already. */
  | { kind: 'downgrade'; change: PlanColumnsChange | null }
  /** A cancel is scheduled (it takes priority over a downgrade), or a charge is in flight. */
  | { kind: 'refused'; reason: 'cancel_scheduled' | 'payment_pending' };

/**
 * What a change to `target` does. `paymentPending`: a charge of the subscription is in flight (an
 * earlier upgrade, or a renewal): a new upgrade or downgrade waits for it, so two charges never
 * race and a downgrade is never scheduled under an upgrade that has not landed yet.
 */
export function decidePlanChange(
  state: PlanState,
  target: PlanCode,
  paymentPending: boolean,
): PlanChangeDecision {
  if (target === 'FREE') return { kind: 'cancel' };
  if (target === state.plan_code) return { kind: 'same' };
  if (paymentPending) return { kind: 'refused', reason: 'payment_pending' };
  if (planRank(target) > planRank(state.plan_code)) {
    return { kind: 'upgrade', from: state.plan_code, to: target };
  }
  if (state.cancel_at_period_end) return { kind: 'refused', reason: 'cancel_scheduled' };
  return {
    kind: 'downgrade',
    change: state.pending_downgrade_to === target ? null : { pending_downgrade_to: target },
  };
}

/**
 * An approved upgrade charge: the higher plan from now, and a downgrade scheduled before it is
 * dropped (the payer chose the higher plan after it). Null when it no longer applies: the
 * subscription ended while the charge was unanswered, or already holds that plan or a higher one.
 */
export function upgradeChange(state: PlanState, target: PaidPlanCode): PlanColumnsChange | null {
  const running = state.status === 'active' || state.status === 'past_due';
  if (!running || planRank(target) <= planRank(state.plan_code)) return null;
  return { plan_code: target, pending_downgrade_to: null };
}

/** Cancel at period end; it clears a pending downgrade (rule 4). Null when one is scheduled already. */
export function cancelChange(state: PlanState): PlanColumnsChange | null {
  if (state.cancel_at_period_end) return null;
  return { cancel_at_period_end: true, pending_downgrade_to: null };
}

/** Withdraw a scheduled cancel; the downgrade it replaced does not come back. Null when none is scheduled. */
export function uncancelChange(state: PlanState): PlanColumnsChange | null {
  return state.cancel_at_period_end ? { cancel_at_period_end: false } : null;
}

/** Withdraw a scheduled downgrade. Null when none is scheduled. */
export function dropDowngradeChange(state: PlanState): PlanColumnsChange | null {
  return state.pending_downgrade_to ? { pending_downgrade_to: null } : null;
}

/**
 * The plan the next period is charged for and held at: the pending downgrade's plan if any, else
 * the plan in force; null when the subscription ends at period end instead (rule 5).
 */
export function planForNextPeriod(state: PlanState): PaidPlanCode | null {
  if (state.cancel_at_period_end) return null;
  return state.pending_downgrade_to ?? state.plan_code;
}

/** Apply a change to the plan columns (what the repository's update does to the row). */
export function withChange<T extends PlanState>(state: T, change: PlanColumnsChange | null): T {
  return change ? { ...state, ...change } : state;
}
