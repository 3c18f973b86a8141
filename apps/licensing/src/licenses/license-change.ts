import { type DomainEvent, type LicenseChangeCause, PLAN_CODES, type PlanCode } from '@lib/contracts';
import { PermanentEventError } from '@lib/messaging';
import { plainToInstance } from 'class-transformer';
import { IsDate, IsIn, IsUUID, ValidateIf, validateSync } from 'class-validator';

/**
 * The licence a billing event says the guild should have, validated like any other input: a
 * message off Kafka is as untrusted as an HTTP body.
 *
 * Ordering: a change is applied only if its event is newer than the last one applied to the
 * licence, by the event's `occurred_at` (billing's clock at the state change), ties broken by the
 * event id (UUID v7, time-ordered). We use event time rather than a subscription version because a
 * guild's licence follows several subscriptions over its life (a new subscription after a cancel is
 * a new row), and time orders events across them. Billing changes of one guild are seconds to a
 * month apart, far above any clock skew between its replicas. Every event carries the complete
 * resulting state, so "newest wins" converges whatever order the events arrive in.
 */
export class LicenseChange {
  @IsUUID()
  guildId: string;

  @IsUUID()
  subscriptionId: string;

  @IsIn(PLAN_CODES, { message: `plan code must be one of ${PLAN_CODES.join(', ')}` })
  planCode: PlanCode;

  /** End of the paid period; null when the change leads to FREE. */
  @ValidateIf((change: LicenseChange) => change.planCode !== 'FREE')
  @IsDate({ message: 'current_period_end must be an ISO 8601 time' })
  periodEnd: Date | null;

  /**
   * The renewing subscription's grace past the period end (billing computes it from its retry
   * schedule); null when it ends at period end, leads to FREE, or the event predates the field.
   */
  @ValidateIf((change: LicenseChange) => change.graceUntil !== null)
  @IsDate({ message: 'grace_until must be an ISO 8601 time or null' })
  graceUntil: Date | null;

  @IsUUID()
  eventId: string;

  @IsDate({ message: 'occurred_at must be an ISO 8601 time' })
  occurredAt: Date;

  cause: LicenseChangeCause;

  static fromEvent(event: DomainEvent): LicenseChange {
    const payload = event.payload as Record<string, unknown>;
    const toFree = event.type === 'SubscriptionCanceledPeriodEnd' || payload.new_plan_code === 'FREE';
    const planCode = toFree
      ? 'FREE'
      : event.type === 'PlanUpgraded' || event.type === 'PlanDowngraded'
        ? payload.new_plan_code
        : payload.plan_code;
    // A scheduled cancel keeps the plan to period end (its `effective_at`) and drops the grace.
    const canceled = event.type === 'SubscriptionCanceled';
    const periodEnd = canceled ? payload.effective_at : payload.current_period_end;
    const change = plainToInstance(LicenseChange, {
      guildId: event.guild_id,
      subscriptionId: payload.subscription_id,
      planCode,
      periodEnd: toFree ? null : toDate(periodEnd),
      graceUntil: toFree || canceled ? null : toOptionalDate(payload.grace_until),
      eventId: event.id,
      occurredAt: toDate(event.occurred_at),
      cause: event.type,
    });
    const problems = validateSync(change).flatMap((error) => Object.values(error.constraints ?? {}));
    if (problems.length > 0) {
      throw new PermanentEventError(
        `${event.type} ${event.id} cannot change a licence: ${problems.join('; ')}`,
      );
    }
    return change;
  }

  /**
   * An uncancel from a producer older than its `plan_code`: it carries no licence state, and the
   * licensing of then did not follow it either.
   */
  static carriesNoLicence(event: DomainEvent): boolean {
    const payload = event.payload as Record<string, unknown>;
    return event.type === 'SubscriptionUncanceled' && payload.plan_code === undefined;
  }

  /** True when this change comes after the last event applied to the licence (if any was). */
  isNewerThan(applied: { lastEventAt: Date | null; lastEventId: string | null }): boolean {
    if (applied.lastEventAt === null || applied.lastEventId === null) return true;
    const delta = this.occurredAt.getTime() - applied.lastEventAt.getTime();
    return delta > 0 || (delta === 0 && this.eventId > applied.lastEventId);
  }
}

/** A Date for an ISO string (an invalid Date for garbage, which validation then names). */
function toDate(value: unknown): Date | undefined {
  return typeof value === 'string' ? new Date(value) : undefined;
}

/** Null for a field that is absent or null, otherwise as `toDate` (garbage stays invalid). */
function toOptionalDate(value: unknown): Date | null {
  if (value === undefined || value === null) return null;
  return toDate(value) ?? new Date(Number.NaN);
}
