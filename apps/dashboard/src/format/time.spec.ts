import { byteSize, duration, nextMidnightUtc, readableDuration, relativeTime } from './time';

describe('times and sizes in words', () => {
  const now = Date.parse('2026-05-01T12:00:00Z');

  it('says how long ago or how soon', () => {
    expect(relativeTime('2026-05-01T09:00:00Z', now, 'en')).toBe('3 hours ago');
    expect(relativeTime('2026-05-01T12:05:00Z', now, 'en')).toBe('in 5 minutes');
    expect(relativeTime('2026-04-30T12:00:00Z', now, 'en')).toBe('yesterday');
    expect(relativeTime('2026-05-01T12:00:00Z', now, 'en')).toBe('now');
  });

  it('measures durations and sizes', () => {
    expect(duration('2026-05-01T12:00:00Z', '2026-05-01T12:01:05Z')).toBe('1 min 5 s');
    expect(duration('2026-05-01T12:00:00.000Z', '2026-05-01T12:00:00.850Z')).toBe('850 ms');
    expect(byteSize(512)).toBe('512 B');
    expect(byteSize(12_500)).toBe('12.5 KB');
    expect(byteSize(3_400_000)).toBe('3.40 MB');
  });

  it('reads the API’s ISO 8601 estimates in words', () => {
    expect(readableDuration('PT1M30S')).toBe('about 1 min 30 s');
    expect(readableDuration('PT2H')).toBe('about 2 h');
    expect(readableDuration('PT0.2S')).toBe('about 1 s');
    expect(readableDuration('PT')).toBe('under a second');
    expect(readableDuration('P1D')).toBe('P1D');
  });

  it('finds the next midnight in UTC', () => {
    expect(nextMidnightUtc(now)).toBe('2026-05-02T00:00:00.000Z');
  });
});
