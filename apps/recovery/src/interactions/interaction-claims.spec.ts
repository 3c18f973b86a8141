import { InteractionClaims } from './interaction-claims';

describe(InteractionClaims.name, () => {
  it('claims an id once within its lifetime, and again after it', () => {
    const claims = new InteractionClaims(1_000, 10);
    expect(claims.claim('a', 0)).toBe(true);
    expect(claims.claim('a', 999)).toBe(false);
    expect(claims.claim('b', 999)).toBe(true);
    expect(claims.claim('a', 1_000)).toBe(true);
  });

  it('keeps at most its capacity, dropping the oldest claim', () => {
    const claims = new InteractionClaims(60_000, 2);
    expect(claims.claim('a', 0)).toBe(true);
    expect(claims.claim('b', 1)).toBe(true);
    expect(claims.claim('c', 2)).toBe(true);
    expect(claims.claim('b', 3)).toBe(false);
    expect(claims.claim('a', 4)).toBe(true);
  });
});
