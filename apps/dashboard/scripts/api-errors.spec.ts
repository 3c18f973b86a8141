import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CHECKOUT_REFUSALS, PROBLEM_CODES } from '../src/api/api.errors';

const SCHEMA_FILE = path.resolve(__dirname, '../src/api/schema.d.ts');

/** Every code the generated client's problem answers declare (`code?: 'ErrA' | 'ErrB'`). */
function declaredCodes(): Set<string> {
  const source = readFileSync(SCHEMA_FILE, 'utf8');
  const codes = new Set<string>();
  for (const [, union] of source.matchAll(/code\?: ((?:'[A-Za-z]+'(?: \| )?)+);/g)) {
    for (const [, code] of union.matchAll(/'([A-Za-z]+)'/g)) codes.add(code);
  }
  return codes;
}

describe("the dashboard's problem codes (apps/dashboard/src/api/api.errors.ts)", () => {
  const declared = declaredCodes();

  it('reads the generated client', () => {
    expect(declared.size).toBeGreaterThan(20);
    expect(declared).toContain('ErrValidation');
  });

  it('are each a code the API declares', () => {
    const undeclared = Object.values(PROBLEM_CODES).filter((code) => !declared.has(code));
    expect(undeclared).toEqual([]);
  });

  it('name every refusal of a checkout the API declares, and nothing else', () => {
    const checkoutCodes = [...declared].filter((code) => code.startsWith('ErrCheckout'));
    expect([...CHECKOUT_REFUSALS].sort()).toEqual(checkoutCodes.sort());
  });
});
