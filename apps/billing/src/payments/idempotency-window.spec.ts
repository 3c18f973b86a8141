import { IDEMPOTENCY_WINDOW_MS, withinIdempotencyWindow } from './payments.service';

describe(withinIdempotencyWindow.name, () => {
  const created = new Date('2026-11-01T00:00:00Z');
  const after = (ms: number) => new Date(created.getTime() + ms);

  it('allows a re-send under the same key for 14 days, a day short of Toss’s 15', () => {
    expect(IDEMPOTENCY_WINDOW_MS).toBe(14 * 86_400_000);
    expect(withinIdempotencyWindow(created, after(0))).toBe(true);
    expect(withinIdempotencyWindow(created, after(IDEMPOTENCY_WINDOW_MS - 1))).toBe(true);
  });

  it('never re-sends from the 14th day on', () => {
    expect(withinIdempotencyWindow(created, after(IDEMPOTENCY_WINDOW_MS))).toBe(false);
    expect(withinIdempotencyWindow(created, after(15 * 86_400_000))).toBe(false);
  });
});
