import { declineMessage } from './decline-messages';
import type { ProviderFailure } from './provider-state';

export interface ChargeRejectionRule {
  /** Only charges with this billing key; with `customerKey` too, both must match. */
  billingKey?: string;
  /** Only charges for this customer. Without either key the rule matches every charge. */
  customerKey?: string;
  /** The provider's decline code, e.g. `REJECT_CARD_PAYMENT`. */
  code: string;
  message?: string;
  /** Default 403 for `REJECT_CARD_PAYMENT` (as the provider answers it), otherwise 400. */
  status?: number;
  /** How many matching charges are declined; default Infinity. */
  times?: number;
}

export interface ChargeRejection extends ProviderFailure {
  status: number;
}

/** Declines a test arranges: each matching charge consumes one from the first matching rule. */
export class ChargeRejections {
  private rules: { rule: ChargeRejectionRule; remaining: number }[] = [];

  add(rule: ChargeRejectionRule): void {
    const times = rule.times ?? Infinity;
    if (!(times > 0)) throw new Error(`rejectCharges: times must be positive, got ${times}`);
    this.rules.push({ rule: { ...rule }, remaining: times });
  }

  take(billingKey: string, customerKey: string): ChargeRejection | undefined {
    const entry = this.rules.find(
      ({ rule }) =>
        (rule.billingKey === undefined || rule.billingKey === billingKey) &&
        (rule.customerKey === undefined || rule.customerKey === customerKey),
    );
    if (!entry) return undefined;
    entry.remaining--;
    if (entry.remaining <= 0) this.rules = this.rules.filter((candidate) => candidate !== entry);
    const { code, message, status } = entry.rule;
    return {
      code,
      message: declineMessage(code, message),
      status: status ?? (code === 'REJECT_CARD_PAYMENT' ? 403 : 400),
    };
  }

  clear(): void {
    this.rules = [];
  }
}
