import type { DomainEvent, EventPayloads, EventType } from '@lib/contracts';
import { PermanentEventError } from '@lib/messaging';
import { v7 as uuidv7 } from 'uuid';
import { LicenseChange } from './license-change';

function event<T extends EventType>(type: T, payload: Partial<EventPayloads[T]> | Record<string, unknown>) {
  const envelope = {
    id: uuidv7(),
    type,
    version: 1,
    occurred_at: '2026-11-22T10:00:00.000Z',
    producer: 'billing',
    aggregate_type: 'subscription',
    aggregate_id: uuidv7(),
    guild_id: uuidv7(),
    correlation_id: null,
    payload,
  };
  return envelope as unknown as DomainEvent;
}

const subscriptionId = uuidv7();
const periodEnd = '2026-12-22T10:00:00.000Z';

describe(LicenseChange.name, () => {
  it('takes the plan and period end of SubscriptionStarted', () => {
    const source = event('SubscriptionStarted', {
      subscription_id: subscriptionId,
      plan_code: 'PRO',
      current_period_end: periodEnd,
    });
    expect(LicenseChange.fromEvent(source)).toMatchObject({
      guildId: source.guild_id,
      subscriptionId,
      planCode: 'PRO',
      periodEnd: new Date(periodEnd),
      eventId: source.id,
      occurredAt: new Date(source.occurred_at),
      cause: 'SubscriptionStarted',
    });
  });

  it('takes the new plan of PlanUpgraded and PlanDowngraded', () => {
    for (const type of ['PlanUpgraded', 'PlanDowngraded'] as const) {
      const change = LicenseChange.fromEvent(
        event(type, {
          subscription_id: subscriptionId,
          old_plan_code: 'PRO',
          new_plan_code: 'ENTERPRISE',
          current_period_end: periodEnd,
        }),
      );
      expect(change.planCode).toBe('ENTERPRISE');
    }
  });

  it('turns SubscriptionCanceledPeriodEnd and a downgrade to FREE into FREE without an end', () => {
    const canceled = LicenseChange.fromEvent(
      event('SubscriptionCanceledPeriodEnd', { subscription_id: subscriptionId, plan_code: 'PRO' }),
    );
    expect(canceled).toMatchObject({ planCode: 'FREE', periodEnd: null });
    const toFree = LicenseChange.fromEvent(
      event('PlanDowngraded', { subscription_id: subscriptionId, new_plan_code: 'FREE' }),
    );
    expect(toFree).toMatchObject({ planCode: 'FREE', periodEnd: null });
  });

  it('takes the renewal grace billing sends, and none from events that predate it', () => {
    const graceUntil = '2026-12-28T10:00:00.000Z';
    const withGrace = LicenseChange.fromEvent(
      event('PaymentSucceeded', {
        subscription_id: subscriptionId,
        plan_code: 'PRO',
        current_period_end: periodEnd,
        grace_until: graceUntil,
      }),
    );
    expect(withGrace).toMatchObject({ periodEnd: new Date(periodEnd), graceUntil: new Date(graceUntil) });
    const older = LicenseChange.fromEvent(
      event('SubscriptionStarted', {
        subscription_id: subscriptionId,
        plan_code: 'PRO',
        current_period_end: periodEnd,
      }),
    );
    expect(older.graceUntil).toBeNull();
  });

  it('keeps the plan to period end without grace on a scheduled cancel, and gives it back on uncancel', () => {
    const canceled = LicenseChange.fromEvent(
      event('SubscriptionCanceled', {
        subscription_id: subscriptionId,
        plan_code: 'ENTERPRISE',
        effective_at: periodEnd,
        cancel_at_period_end: true,
      }),
    );
    expect(canceled).toMatchObject({
      planCode: 'ENTERPRISE',
      periodEnd: new Date(periodEnd),
      graceUntil: null,
    });
    const uncanceled = event('SubscriptionUncanceled', {
      subscription_id: subscriptionId,
      plan_code: 'ENTERPRISE',
      current_period_end: periodEnd,
      grace_until: '2026-12-28T10:00:00.000Z',
    });
    expect(LicenseChange.carriesNoLicence(uncanceled)).toBe(false);
    expect(LicenseChange.fromEvent(uncanceled)).toMatchObject({
      planCode: 'ENTERPRISE',
      graceUntil: new Date('2026-12-28T10:00:00.000Z'),
    });
    const olderUncancel = event('SubscriptionUncanceled', { subscription_id: subscriptionId });
    expect(LicenseChange.carriesNoLicence(olderUncancel)).toBe(true);
  });

  it('refuses a grace that is not a time for good', () => {
    const source = event('SubscriptionStarted', {
      subscription_id: subscriptionId,
      plan_code: 'PRO',
      current_period_end: periodEnd,
      grace_until: 42,
    });
    expect(() => LicenseChange.fromEvent(source)).toThrow(/grace_until must be an ISO 8601 time/);
  });

  it.each([
    ['a missing plan code', { subscription_id: subscriptionId, current_period_end: periodEnd }, /plan code/],
    [
      'an unknown plan code',
      { subscription_id: subscriptionId, plan_code: 'GOLD', current_period_end: periodEnd },
      /plan code must be one of FREE, PRO, ENTERPRISE/,
    ],
    ['a missing period end', { subscription_id: subscriptionId, plan_code: 'PRO' }, /current_period_end/],
    [
      'an unparseable period end',
      { subscription_id: subscriptionId, plan_code: 'PRO', current_period_end: 'next month' },
      /current_period_end/,
    ],
    ['a missing subscription id', { plan_code: 'PRO', current_period_end: periodEnd }, /subscriptionId/],
  ])('refuses %s for good', (_, payload, message) => {
    const source = event('SubscriptionStarted', payload);
    expect(() => LicenseChange.fromEvent(source)).toThrow(PermanentEventError);
    expect(() => LicenseChange.fromEvent(source)).toThrow(message);
  });

  describe('ordering', () => {
    const applied = { lastEventAt: new Date('2026-11-22T10:00:00.000Z'), lastEventId: uuidv7() };
    const at = (occurredAt: string, eventId = uuidv7()) =>
      Object.assign(new LicenseChange(), { occurredAt: new Date(occurredAt), eventId });

    it('applies a later event and ignores an earlier one', () => {
      expect(at('2026-11-22T10:00:00.001Z').isNewerThan(applied)).toBe(true);
      expect(at('2026-11-22T09:59:59.999Z').isNewerThan(applied)).toBe(false);
    });

    it('applies any event to a licence that has applied none yet (reserved by billing)', () => {
      expect(at('2020-01-01T00:00:00.000Z').isNewerThan({ lastEventAt: null, lastEventId: null })).toBe(true);
    });

    it('breaks a tie of times by event id, and never reapplies the same event', () => {
      const sameTime = '2026-11-22T10:00:00.000Z';
      expect(at(sameTime, '00000000-0000-7000-8000-000000000000').isNewerThan(applied)).toBe(false);
      expect(at(sameTime, 'ffffffff-ffff-7fff-bfff-ffffffffffff').isNewerThan(applied)).toBe(true);
      expect(at(sameTime, applied.lastEventId).isNewerThan(applied)).toBe(false);
    });
  });
});
