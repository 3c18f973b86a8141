import {
  cancelChange,
  decidePlanChange,
  dropDowngradeChange,
  planForNextPeriod,
  type PlanState,
  uncancelChange,
  upgradeChange,
  withChange,
} from './plan-rules';

const state = (change: Partial<PlanState> = {}): PlanState => ({
  status: 'active',
  plan_code: 'PRO',
  pending_downgrade_to: null,
  cancel_at_period_end: false,
  ...change,
});

describe(decidePlanChange.name, () => {
  it('reads FREE as a cancel and the plan in force as nothing', () => {
    expect(decidePlanChange(state(), 'FREE', false)).toEqual({ kind: 'cancel' });
    expect(decidePlanChange(state(), 'PRO', true)).toEqual({ kind: 'same' });
  });

  it('upgrades from the plan in force, even with a cancel scheduled', () => {
    expect(decidePlanChange(state(), 'ENTERPRISE', false)).toEqual({
      kind: 'upgrade',
      from: 'PRO',
      to: 'ENTERPRISE',
    });
    expect(decidePlanChange(state({ cancel_at_period_end: true }), 'ENTERPRISE', false).kind).toBe('upgrade');
  });

  it('refuses an upgrade or a downgrade while a charge is in flight', () => {
    expect(decidePlanChange(state(), 'ENTERPRISE', true)).toEqual({
      kind: 'refused',
      reason: 'payment_pending',
    });
    expect(decidePlanChange(state({ plan_code: 'ENTERPRISE' }), 'PRO', true).kind).toBe('refused');
  });

  it('schedules a downgrade once, and refuses it under a scheduled cancel', () => {
    const enterprise = state({ plan_code: 'ENTERPRISE' });
    expect(decidePlanChange(enterprise, 'PRO', false)).toEqual({
      kind: 'downgrade',
      change: { pending_downgrade_to: 'PRO' },
    });
    expect(decidePlanChange({ ...enterprise, pending_downgrade_to: 'PRO' }, 'PRO', false)).toEqual({
      kind: 'downgrade',
      change: null,
    });
    expect(decidePlanChange({ ...enterprise, cancel_at_period_end: true }, 'PRO', false)).toEqual({
      kind: 'refused',
      reason: 'cancel_scheduled',
    });
  });
});

describe(upgradeChange.name, () => {
  it('puts the higher plan in force and drops a pending downgrade', () => {
    expect(upgradeChange(state({ pending_downgrade_to: 'PRO' }), 'ENTERPRISE')).toEqual({
      plan_code: 'ENTERPRISE',
      pending_downgrade_to: null,
    });
  });

  it('changes nothing once the subscription ended or holds that plan already', () => {
    expect(upgradeChange(state({ status: 'canceled' }), 'ENTERPRISE')).toBeNull();
    expect(upgradeChange(state({ plan_code: 'ENTERPRISE' }), 'ENTERPRISE')).toBeNull();
  });
});

describe('cancel, uncancel and dropping a downgrade', () => {
  it('cancel clears a pending downgrade, and uncancel does not bring it back', () => {
    const canceled = withChange(
      state({ plan_code: 'ENTERPRISE', pending_downgrade_to: 'PRO' }),
      cancelChange(state({ plan_code: 'ENTERPRISE', pending_downgrade_to: 'PRO' })),
    );
    expect(canceled).toMatchObject({ cancel_at_period_end: true, pending_downgrade_to: null });
    expect(cancelChange(canceled)).toBeNull();
    const uncanceled = withChange(canceled, uncancelChange(canceled));
    expect(uncanceled).toMatchObject({ cancel_at_period_end: false, pending_downgrade_to: null });
    expect(uncancelChange(uncanceled)).toBeNull();
  });

  it('drops a pending downgrade, or does nothing', () => {
    expect(dropDowngradeChange(state({ pending_downgrade_to: 'PRO' }))).toEqual({
      pending_downgrade_to: null,
    });
    expect(dropDowngradeChange(state())).toBeNull();
  });
});

describe(planForNextPeriod.name, () => {
  it('is the pending downgrade, else the plan in force, and nothing when a cancel is scheduled', () => {
    expect(planForNextPeriod(state({ plan_code: 'ENTERPRISE', pending_downgrade_to: 'PRO' }))).toBe('PRO');
    expect(planForNextPeriod(state({ plan_code: 'ENTERPRISE' }))).toBe('ENTERPRISE');
    expect(planForNextPeriod(state({ cancel_at_period_end: true }))).toBeNull();
  });
});
