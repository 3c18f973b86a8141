import type { ProviderPayment } from '../provider/payment-provider.client';

/** What the provider's answer makes of a payment billing may hold a charge for. */
export type PaymentTruth =
  | { kind: 'approved'; orderId: string; paymentKey: string; approvedAt: Date }
  | { kind: 'declined'; orderId: string; code: string; message: string }
  | { kind: 'canceled'; orderId: string; canceledAt: Date }
  /** READY, IN_PROGRESS, WAITING_FOR_DEPOSIT: nothing decided yet (a billing charge never shows them). */
  | { kind: 'undecided'; orderId: string; status: ProviderPayment['status'] };

/**
 * The payment's status as the provider reports it, read as billing acts on it: DONE approved;
 * ABORTED (declined) and EXPIRED (never approved) declined; CANCELED and PARTIAL_CANCELED canceled
 * at the provider (billing's refunds are whole, so a partial cancel is an operator's act at the
 * provider, and is treated as the cancel it starts). The others are undecided.
 */
export function truthOf(payment: ProviderPayment): PaymentTruth {
  const { orderId, status } = payment;
  switch (status) {
    case 'DONE': {
      // The client refuses a DONE answer without its approval time.
      if (!payment.approvedAt) throw new Error(`payment of order ${orderId} is DONE without approvedAt`);
      return { kind: 'approved', orderId, paymentKey: payment.paymentKey, approvedAt: payment.approvedAt };
    }
    case 'ABORTED':
    case 'EXPIRED':
      return {
        kind: 'declined',
        orderId,
        code: payment.failure?.code ?? `PAYMENT_${status}`,
        message: payment.failure?.message ?? `The provider reports the payment ${status}.`,
      };
    case 'CANCELED':
    case 'PARTIAL_CANCELED':
      return {
        kind: 'canceled',
        orderId,
        // The last cancel's own time when the provider gives it; else now, when billing learns of it.
        canceledAt: payment.cancels.at(-1)?.canceledAt ?? new Date(),
      };
    case 'READY':
    case 'IN_PROGRESS':
    case 'WAITING_FOR_DEPOSIT':
      return { kind: 'undecided', orderId, status };
  }
}

/** " (the delivery said DONE)" when the delivery's claim differs from what the provider reports. */
export function claimNote(claimed: string | null, reported: string): string {
  return claimed !== null && claimed !== reported ? ` (the delivery said ${claimed})` : '';
}
