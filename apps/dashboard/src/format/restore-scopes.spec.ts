import { ALL_SCOPES, DEFAULT_SCOPES, scopeQuery, scopesFromQuery } from './restore-scopes';

describe(scopesFromQuery.name, () => {
  it('reads back what scopeQuery wrote, every scope included', () => {
    expect(scopesFromQuery(scopeQuery(ALL_SCOPES))).toEqual(ALL_SCOPES);
    expect(scopesFromQuery(scopeQuery(DEFAULT_SCOPES))).toEqual(DEFAULT_SCOPES);
  });

  it('keeps known scopes only, once each, in the page’s order', () => {
    expect(scopesFromQuery('bans, roles,nonsense,roles')).toEqual(['roles', 'bans']);
  });

  it('is null for an absent value or one that names no scope', () => {
    expect(scopesFromQuery(null)).toBeNull();
    expect(scopesFromQuery('')).toBeNull();
    expect(scopesFromQuery('everything')).toBeNull();
  });
});
