import { type PlanCode, planRank } from '@lib/contracts';
import type { BillingKeyRow } from '../billing-keys/billing-keys.repository';
import { planForNextPeriod } from './plan-rules';
import { upgradeQuote } from './proration';

export type SubscriptionStatus = 'pending' | 'active' | 'past_due' | 'canceled';
export type PaidPlanCode = Exclude<PlanCode, 'FREE'>;
export type CancelReason = 'first_charge_rejected' | 'period_end' | 'payment_failed';

/** A `billing.subscriptions` row (docs/behaviour.md §2.4), as stored. */
export interface SubscriptionRow {
  id: string;
  guild_id: string;
  license_id: string | null;
  billing_key_id: string;
  plan_code: PaidPlanCode;
  payer_user_id: string;
  /** Who the subscription's events DM; null only for subscriptions from before it was recorded. */
  payer_platform_user_id: string | null;
  guild_name: string;
  status: SubscriptionStatus;
  billing_cycle: 'monthly';
  cycle_count: number;
  billing_anchor_at: Date | null;
  current_period_start: Date | null;
  current_period_end: Date | null;
  next_billing_at: Date | null;
  cancel_at_period_end: boolean;
  pending_downgrade_to: PaidPlanCode | null;
  canceled_at: Date | null;
  cancel_reason: CancelReason | null;
  created_at: Date;
  updated_at: Date;
}

/**
 * The card a subscription is charged on: the payer's card on file, shared by all their
 * subscriptions. `deleted` when it was removed at the provider (nothing can be charged on it).
 */
export interface CardView {
  card_company: string;
  card_last4: string;
  status: 'active' | 'deleted';
}

export function toCardView(key: BillingKeyRow): CardView {
  return { card_company: key.card_company, card_last4: key.card_last4, status: key.status };
}

/** A subscription as the dashboard sees it. */
export interface SubscriptionView {
  id: string;
  guild_id: string;
  payer_user_id: string;
  /** Who pays, as the chat platform knows them; null only for subscriptions from before it was recorded. */
  payer_platform_user_id: string | null;
  plan: PaidPlanCode;
  status: SubscriptionStatus;
  billing_cycle: 'monthly';
  cycle_count: number;
  current_period_start: string | null;
  current_period_end: string | null;
  next_billing_at: string | null;
  cancel_at_period_end: boolean;
  pending_downgrade_to: PaidPlanCode | null;
  canceled_at: string | null;
  cancel_reason: CancelReason | null;
  /** Which card the subscription charges (its last four digits). */
  card: CardView;
  updated_at: string;
}

export function toSubscriptionView(row: SubscriptionRow, card: BillingKeyRow): SubscriptionView {
  return {
    id: row.id,
    guild_id: row.guild_id,
    payer_user_id: row.payer_user_id,
    payer_platform_user_id: row.payer_platform_user_id,
    plan: row.plan_code,
    status: row.status,
    billing_cycle: row.billing_cycle,
    cycle_count: row.cycle_count,
    current_period_start: iso(row.current_period_start),
    current_period_end: iso(row.current_period_end),
    next_billing_at: iso(row.next_billing_at),
    cancel_at_period_end: row.cancel_at_period_end,
    pending_downgrade_to: row.pending_downgrade_to,
    canceled_at: iso(row.canceled_at),
    cancel_reason: row.cancel_reason,
    card: toCardView(card),
    updated_at: row.updated_at.toISOString(),
  };
}

function iso(value: Date | null): string | null {
  return value ? value.toISOString() : null;
}

/** The charge a running subscription makes next: a renewal, or the retry of a failed one. */
export interface NextChargeView {
  at: string;
  /** The plan it pays for: a pending downgrade takes over before the renewal is charged. */
  plan: PaidPlanCode;
  amount_krw: number;
}

/** A higher plan the payer may move to now, and what that upgrade would charge now. */
export interface UpgradeOptionView {
  plan: PaidPlanCode;
  /**
   * The prorated difference for the rest of the period, at `quoted_at`; the charge at the click is
   * at most this (less time is left by then), and never under the provider's card minimum.
   */
  amount_krw: number;
  quoted_at: string;
}

/** A subscription as its page shows it: with the charge that comes next. */
export interface SubscriptionDetailView extends SubscriptionView {
  /** Null when nothing will be charged (not yet started, ending at period end, or ended). */
  next_charge: NextChargeView | null;
  /** Empty unless an upgrade can be made now (active, no charge in flight, a higher plan exists). */
  upgrade_options: UpgradeOptionView[];
}

/**
 * What each higher plan would charge now (proration.ts), for the dashboard to say before the click.
 * `plans`: the paid plans with their prices, in any order.
 */
export function upgradeOptionsOf(
  row: SubscriptionRow,
  plans: ReadonlyArray<{ code: PaidPlanCode; price_krw: number }>,
  paymentPending: boolean,
  now: Date,
): UpgradeOptionView[] {
  if (row.status !== 'active' || paymentPending || !row.current_period_start || !row.current_period_end) {
    return [];
  }
  const current = plans.find((plan) => plan.code === row.plan_code);
  if (!current) return [];
  const period = { start: row.current_period_start, end: row.current_period_end };
  return plans
    .filter((plan) => planRank(plan.code) > planRank(row.plan_code) && plan.price_krw > current.price_krw)
    .sort((a, b) => planRank(a.code) - planRank(b.code))
    .map((plan) => ({
      plan: plan.code,
      amount_krw: upgradeQuote(current.price_krw, plan.price_krw, period, now).amount_krw,
      quoted_at: now.toISOString(),
    }));
}

/** What the subscription charges next, at the prices of `priceOf`; null when it will not. */
export function nextChargeOf(
  row: SubscriptionRow,
  priceOf: (plan: PaidPlanCode) => number,
): NextChargeView | null {
  const running = row.status === 'active' || row.status === 'past_due';
  const plan = planForNextPeriod(row);
  if (!running || plan === null || !row.next_billing_at) return null;
  return { at: row.next_billing_at.toISOString(), plan, amount_krw: priceOf(plan) };
}
