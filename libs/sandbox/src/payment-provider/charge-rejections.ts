import {
  LOST_ANSWERS,
  type LostAnswerCode,
  TEMPORARY_FAILURES,
  type TemporaryFailureCode,
  declineMessage,
  declineStatus,
} from './decline-messages';
import type { ProviderFailure } from './provider-state';

/** Which charges a rule applies to. */
export interface ChargeMatch {
  /** Only charges with this billing key; with `customerKey` too, both must match. */
  billingKey?: string;
  /** Only charges for this customer. Without either key the rule matches every charge. */
  customerKey?: string;
  /** How many matching charges it applies to; default Infinity. */
  times?: number;
}

export interface ChargeRejectionRule extends ChargeMatch {
  /** The provider's decline code, e.g. `REJECT_CARD_PAYMENT`. */
  code: string;
  message?: string;
  /** Default: Toss's status for the code (decline-messages.ts), 400 for codes it does not list. */
  status?: number;
}

/** The charge is not made; the provider answers a temporary failure (try again later). */
export interface ChargeFailureRule extends ChargeMatch {
  code: TemporaryFailureCode;
}

/** The charge is made, but the answer the merchant gets is this error instead of the payment. */
export interface LostAnswerRule extends ChargeMatch {
  /** Default PROVIDER_ERROR. */
  answer?: LostAnswerCode;
}

export interface ChargeRejection extends ProviderFailure {
  status: number;
}

/** Rules a test arranges: each matching charge consumes one use of the first matching rule. */
class MatchingRules<Rule extends ChargeMatch> {
  private rules: { rule: Rule; remaining: number }[] = [];

  constructor(private readonly what: string) {}

  add(rule: Rule): void {
    const times = rule.times ?? Infinity;
    if (!(times > 0)) throw new Error(`${this.what}: times must be positive, got ${times}`);
    this.rules.push({ rule: { ...rule }, remaining: times });
  }

  take(billingKey: string, customerKey: string): Rule | undefined {
    const entry = this.rules.find(
      ({ rule }) =>
        (rule.billingKey === undefined || rule.billingKey === billingKey) &&
        (rule.customerKey === undefined || rule.customerKey === customerKey),
    );
    if (!entry) return undefined;
    entry.remaining--;
    if (entry.remaining <= 0) this.rules = this.rules.filter((candidate) => candidate !== entry);
    return entry.rule;
  }

  clear(): void {
    this.rules = [];
  }
}

/** Declines a test arranges. */
export class ChargeRejections {
  private readonly rules = new MatchingRules<ChargeRejectionRule>('rejectCharges');

  add(rule: ChargeRejectionRule): void {
    this.rules.add(rule);
  }

  take(billingKey: string, customerKey: string): ChargeRejection | undefined {
    const rule = this.rules.take(billingKey, customerKey);
    if (!rule) return undefined;
    return {
      code: rule.code,
      message: declineMessage(rule.code, rule.message),
      status: rule.status ?? declineStatus(rule.code),
    };
  }

  clear(): void {
    this.rules.clear();
  }
}

/** Temporary failures (no charge) and lost answers (charged, answered with an error) a test arranges. */
export class ChargeMishaps {
  private readonly failures = new MatchingRules<ChargeFailureRule>('failCharges');
  private readonly lost = new MatchingRules<LostAnswerRule>('loseChargeAnswers');

  addFailure(rule: ChargeFailureRule): void {
    if (!(rule.code in TEMPORARY_FAILURES)) throw new Error(`failCharges: ${rule.code} is not temporary`);
    this.failures.add(rule);
  }

  addLostAnswer(rule: LostAnswerRule): void {
    if (rule.answer !== undefined && !(rule.answer in LOST_ANSWERS)) {
      throw new Error(`loseChargeAnswers: unknown answer ${rule.answer}`);
    }
    this.lost.add(rule);
  }

  takeFailure(billingKey: string, customerKey: string): ChargeRejection | undefined {
    const rule = this.failures.take(billingKey, customerKey);
    return rule && this.failureFor(rule.code);
  }

  takeLostAnswer(billingKey: string, customerKey: string): ChargeRejection | undefined {
    const rule = this.lost.take(billingKey, customerKey);
    return rule && this.lostAnswerFor(rule.answer ?? 'PROVIDER_ERROR');
  }

  failureFor(code: TemporaryFailureCode): ChargeRejection {
    return { code, ...TEMPORARY_FAILURES[code] };
  }

  lostAnswerFor(code: LostAnswerCode): ChargeRejection {
    return { code, ...LOST_ANSWERS[code] };
  }

  clear(): void {
    this.failures.clear();
    this.lost.clear();
  }
}
