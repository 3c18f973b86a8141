import { IdempotencyCache } from './idempotency-cache';
import type { BillingKeyRecord, PendingAuthKey, StoredCharge } from './provider-state';

/** Everything the provider remembers between requests; the control API reads and changes it directly. */
export class ProviderStore {
  readonly authKeys = new Map<string, PendingAuthKey>();
  readonly billingKeys = new Map<string, BillingKeyRecord>();
  /** Every decided charge, in order. */
  readonly charges: StoredCharge[] = [];
  readonly approvedByOrderId = new Map<string, StoredCharge>();
  readonly approvedByPaymentKey = new Map<string, StoredCharge>();
  /** What the payment look-ups find: an order's approved charge, else its latest declined one. */
  readonly paymentsByOrderId = new Map<string, StoredCharge>();
  /** Every Payment object's key, declined ones included (they have one at the provider). */
  readonly paymentsByPaymentKey = new Map<string, StoredCharge>();
  readonly idempotency = new IdempotencyCache();

  recordCharge(charge: StoredCharge): void {
    this.charges.push(charge);
    if (charge.paymentKey !== null) {
      this.approvedByOrderId.set(charge.orderId, charge);
      this.approvedByPaymentKey.set(charge.paymentKey, charge);
    }
    if (charge.payment) {
      this.paymentsByPaymentKey.set(charge.payment.paymentKey, charge);
      if (!this.approvedByOrderId.has(charge.orderId) || charge.paymentKey !== null) {
        this.paymentsByOrderId.set(charge.orderId, charge);
      }
    }
  }

  clear(): void {
    this.authKeys.clear();
    this.billingKeys.clear();
    this.charges.length = 0;
    this.approvedByOrderId.clear();
    this.approvedByPaymentKey.clear();
    this.paymentsByOrderId.clear();
    this.paymentsByPaymentKey.clear();
    this.idempotency.clear();
  }
}
