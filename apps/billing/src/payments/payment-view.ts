import type { PaidPlanCode } from '../subscriptions/subscription';
import type { PaymentPurpose } from './order-id';
import type { PaymentAttemptRow, PaymentAttemptStatus } from './payment-attempts.repository';

/** One charge of a subscription as its payment history shows it. */
export interface PaymentView {
  order_id: string;
  /** `period`: the charge of a billing cycle; `upgrade`: the prorated difference of a higher `plan` within `cycle`. */
  purpose: PaymentPurpose;
  /** The billing cycle it pays (1 = the first month) and which try of it (0 = the first; an upgrade's count within the cycle). */
  cycle: number;
  retry_number: number;
  plan: PaidPlanCode;
  amount_krw: number;
  /** `pending` while the provider has not answered. */
  status: PaymentAttemptStatus;
  /** The provider's decline code and reason, for a failed charge. */
  failure_code: string | null;
  failure_message: string | null;
  approved_at: string | null;
  /** Set when the provider refunded an approved charge. */
  refunded_at: string | null;
  /** The provider's receipt page of an approved charge (a web address at the provider), for a link. */
  receipt_url: string | null;
  created_at: string;
}

export function toPaymentView(row: PaymentAttemptRow): PaymentView {
  return {
    order_id: row.order_id,
    purpose: row.purpose,
    cycle: row.cycle,
    retry_number: row.retry_number,
    plan: row.plan_code,
    amount_krw: row.amount_krw,
    status: row.status,
    failure_code: row.failure_code,
    failure_message: row.failure_message,
    approved_at: row.provider_approved_at?.toISOString() ?? null,
    refunded_at: row.provider_canceled_at?.toISOString() ?? null,
    receipt_url: row.receipt_url,
    created_at: row.created_at.toISOString(),
  };
}
