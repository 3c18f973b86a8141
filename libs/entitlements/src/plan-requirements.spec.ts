import type { PlanDefinition } from '@lib/contracts';
import { listInWords, lowestPlanWhere, missingRestoreScopes } from './plan-requirements';

const plan = (code: PlanDefinition['code'], rank: number, restoreScopes: PlanDefinition['restore_scopes']) =>
  ({
    code,
    rank,
    name: code,
    price_krw: rank * 10_000,
    features: restoreScopes.length > 0 ? ['RECOVERY_RESTORE'] : [],
    restore_scopes: restoreScopes,
    limits: {
      snapshot_manual_max: rank,
      scheduled_snapshot_retention_days: null,
      audit_log_retention_days: 30,
      snapshot_image_bytes: 0,
    },
  }) satisfies PlanDefinition;

describe(lowestPlanWhere.name, () => {
  const free = plan('FREE', 0, []);
  const pro = plan('PRO', 1, ['roles', 'channels']);
  const enterprise = plan('ENTERPRISE', 2, ['roles', 'channels', 'bans']);

  it('names the lowest-ranked plan that covers the request', () => {
    const hasRoles = (candidate: PlanDefinition) => candidate.restore_scopes.includes('roles');
    const hasBans = (candidate: PlanDefinition) => candidate.restore_scopes.includes('bans');
    expect(lowestPlanWhere([free, pro, enterprise], hasRoles)).toBe(pro);
    expect(lowestPlanWhere([free, pro, enterprise], hasBans)).toBe(enterprise);
  });

  it('ranks by rank, not by the order the catalogue was listed in', () => {
    const hasRoles = (candidate: PlanDefinition) => candidate.restore_scopes.includes('roles');
    expect(lowestPlanWhere([enterprise, pro, free], hasRoles)).toBe(pro);
  });

  it('names none when no plan covers it', () => {
    expect(lowestPlanWhere([free, pro, enterprise], () => false)).toBeUndefined();
    expect(lowestPlanWhere([], () => true)).toBeUndefined();
  });
});

describe(missingRestoreScopes.name, () => {
  it('lists each requested scope the plan lacks once, in the order asked', () => {
    const entitlements = { restore_scopes: ['roles', 'channels'] as PlanDefinition['restore_scopes'] };
    expect(missingRestoreScopes(entitlements, ['bans', 'roles', 'member_roles', 'bans'])).toEqual([
      'bans',
      'member_roles',
    ]);
  });

  it('finds nothing missing when the plan lists every scope, or none is asked', () => {
    const entitlements = { restore_scopes: ['roles', 'bans'] as PlanDefinition['restore_scopes'] };
    expect(missingRestoreScopes(entitlements, ['bans', 'roles'])).toEqual([]);
    expect(missingRestoreScopes(entitlements, [])).toEqual([]);
  });
});

describe(listInWords.name, () => {
  it('joins with commas and a final "and"', () => {
    expect(listInWords([])).toBe('');
    expect(listInWords(['bans'])).toBe('bans');
    expect(listInWords(['member_roles', 'bans'])).toBe('member_roles and bans');
    expect(listInWords(['roles', 'channels', 'bans'])).toBe('roles, channels and bans');
  });
});
