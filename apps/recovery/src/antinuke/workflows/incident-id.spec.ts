import { incidentIdFrom } from './incident-id';

describe(incidentIdFrom.name, () => {
  const random = '3f1c2b4a-9d8e-4f70-a1b2-c3d4e5f60718';

  it('is a UUID v7 carrying the time, and the same for the same inputs', () => {
    const now = Date.parse('2026-11-22T10:00:00.123Z');
    const sut = incidentIdFrom(now, random);
    expect(sut).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(sut.replace(/-/g, '').slice(0, 12), 16)).toBe(now);
    expect(incidentIdFrom(now, random)).toBe(sut);
    expect(incidentIdFrom(now, '3f1c2b4a-9d8e-4f70-a1b2-c3d4e5f60719')).not.toBe(sut);
  });

  it('sorts by time', () => {
    const earlier = incidentIdFrom(Date.parse('2026-11-22T10:00:00Z'), random);
    const later = incidentIdFrom(Date.parse('2026-11-22T10:00:01Z'), '00000000-0000-4000-8000-000000000000');
    expect(earlier < later).toBe(true);
  });
});
