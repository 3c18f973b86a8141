import {
  type DomainEvent,
  EVENT_ENVELOPE_VERSION,
  type EventPayloads,
  type EventType,
  type PlanCode,
  TOPICS,
} from '@lib/contracts';
import { KafkaEventPublisher } from '@lib/messaging';
import { v7 as uuidv7 } from 'uuid';
import { testKafka } from './test-kafka';

const DAY_MS = 86_400_000;

/**
 * Plays billing's part on `billing.events`: builds the events one subscription of one guild goes
 * through, with increasing `occurred_at`, and publishes them (again, to simulate redelivery).
 */
export class BillingEventStream {
  private readonly publisher = new KafkaEventPublisher(testKafka('test-billing'));

  async publish(...events: DomainEvent[]): Promise<void> {
    await this.publisher.publish(
      events.map((event) => ({
        id: event.id,
        topic: TOPICS.billing,
        key: event.guild_id,
        eventType: event.type,
        envelope: JSON.stringify(event),
      })),
    );
  }

  async close(): Promise<void> {
    await this.publisher.close();
  }
}

export class SubscriptionScenario {
  readonly subscriptionId = uuidv7();
  readonly payerUserId = uuidv7();
  readonly payerPlatformUserId = '300000000000000001';
  readonly guildName = 'Test guild';
  /** Billing's clock: every event happens a minute after the previous one. */
  private clock = Date.now() - 60 * 60_000;
  periodEnd = new Date(Date.now() + 30 * DAY_MS);
  /** The renewal grace billing would send; null (no grace, as from an older billing) unless set. */
  graceUntil: Date | null = null;

  constructor(readonly guildId: string = uuidv7()) {}

  event<T extends EventType>(type: T, payload: EventPayloads[T] | Record<string, unknown>): DomainEvent<T> {
    this.clock += 60_000;
    return {
      id: uuidv7(),
      type,
      version: EVENT_ENVELOPE_VERSION,
      occurred_at: new Date(this.clock).toISOString(),
      producer: 'billing',
      aggregate_type: 'subscription',
      aggregate_id: this.subscriptionId,
      guild_id: this.guildId,
      correlation_id: null,
      payload: payload as EventPayloads[T],
    };
  }

  started(plan: PlanCode): DomainEvent<'SubscriptionStarted'> {
    return this.event('SubscriptionStarted', {
      subscription_id: this.subscriptionId,
      license_id: null,
      guild_id: this.guildId,
      payer_user_id: this.payerUserId,
      payer_platform_user_id: this.payerPlatformUserId,
      guild_name: this.guildName,
      plan_code: plan,
      amount_krw: plan === 'ENTERPRISE' ? 29_900 : 9_900,
      current_period_start: new Date(this.periodEnd.getTime() - 30 * DAY_MS).toISOString(),
      current_period_end: this.periodEnd.toISOString(),
      next_billing_at: this.periodEnd.toISOString(),
      ...this.grace(),
    });
  }

  upgraded(from: PlanCode, to: PlanCode): DomainEvent<'PlanUpgraded'> {
    return this.event('PlanUpgraded', {
      subscription_id: this.subscriptionId,
      license_id: null,
      payer_user_id: this.payerUserId,
      payer_platform_user_id: this.payerPlatformUserId,
      guild_name: this.guildName,
      old_plan_code: from,
      new_plan_code: to,
      effective_at: new Date(this.clock).toISOString(),
      current_period_end: this.periodEnd.toISOString(),
      ...this.grace(),
    });
  }

  downgraded(from: PlanCode, to: PlanCode): DomainEvent<'PlanDowngraded'> {
    return this.event('PlanDowngraded', {
      subscription_id: this.subscriptionId,
      license_id: null,
      old_plan_code: from,
      new_plan_code: to,
      effective_at: new Date(this.clock).toISOString(),
      current_period_end: this.periodEnd.toISOString(),
      ...this.grace(),
    });
  }

  renewed(plan: PlanCode, cycle: number): DomainEvent<'PaymentSucceeded'> {
    this.periodEnd = new Date(this.periodEnd.getTime() + 30 * DAY_MS);
    return this.event('PaymentSucceeded', {
      subscription_id: this.subscriptionId,
      payment_attempt_id: uuidv7(),
      order_id: `sub_${this.subscriptionId}_${String(cycle).padStart(3, '0')}_r0`,
      amount_krw: 9_900,
      cycle,
      retry_number: 0,
      provider_approved_at: new Date(this.clock).toISOString(),
      plan_code: plan,
      current_period_end: this.periodEnd.toISOString(),
      ...this.grace(),
    });
  }

  /** The payer scheduled a cancel: the plan stays to period end, without renewal grace. */
  canceled(plan: PlanCode): DomainEvent<'SubscriptionCanceled'> {
    return this.event('SubscriptionCanceled', {
      subscription_id: this.subscriptionId,
      license_id: null,
      cancel_at_period_end: true,
      effective_at: this.periodEnd.toISOString(),
      requested_by_user: this.payerUserId,
      payer_platform_user_id: this.payerPlatformUserId,
      guild_name: this.guildName,
      plan_code: plan,
      dropped_pending_downgrade_to: null,
    });
  }

  uncanceled(plan: PlanCode): DomainEvent<'SubscriptionUncanceled'> {
    return this.event('SubscriptionUncanceled', {
      subscription_id: this.subscriptionId,
      license_id: null,
      requested_by_user: this.payerUserId,
      plan_code: plan,
      current_period_end: this.periodEnd.toISOString(),
      ...this.grace(),
    });
  }

  /** Only when set: events of an older billing have no `grace_until` at all. */
  private grace(): { grace_until?: string } {
    return this.graceUntil ? { grace_until: this.graceUntil.toISOString() } : {};
  }

  canceledAtPeriodEnd(plan: PlanCode): DomainEvent<'SubscriptionCanceledPeriodEnd'> {
    return this.event('SubscriptionCanceledPeriodEnd', {
      subscription_id: this.subscriptionId,
      license_id: null,
      payer_user_id: this.payerUserId,
      payer_platform_user_id: this.payerPlatformUserId,
      guild_name: this.guildName,
      reason: 'period_end',
      plan_code: plan,
    });
  }
}
