import { isPlanCode, PLAN_CODES, planRank } from './plans';

describe('plan ranks', () => {
  it('ranks FREE 0, PRO 1, ENTERPRISE 2', () => {
    expect(PLAN_CODES.map((code) => [code, planRank(code)])).toEqual([
      ['FREE', 0],
      ['PRO', 1],
      ['ENTERPRISE', 2],
    ]);
  });

  it('orders an upgrade above and a downgrade below', () => {
    expect(planRank('ENTERPRISE')).toBeGreaterThan(planRank('PRO'));
    expect(planRank('FREE')).toBeLessThan(planRank('PRO'));
  });

  it('recognises only the three plan codes, case-sensitively', () => {
    expect(PLAN_CODES.every(isPlanCode)).toBe(true);
    for (const value of ['pro', 'GOLD', '', null, undefined, 1, {}]) expect(isPlanCode(value)).toBe(false);
  });
});
