import { withIsoDates } from './iso-dates';

describe(withIsoDates.name, () => {
  it('turns each Date column into its ISO 8601 string and keeps the other columns', () => {
    const row = {
      id: 'a',
      count: 3,
      opened_at: new Date('2026-03-01T10:00:00.000Z'),
      closed_at: null as Date | null,
      tags: ['x'],
    };
    expect(withIsoDates(row)).toEqual({
      id: 'a',
      count: 3,
      opened_at: '2026-03-01T10:00:00.000Z',
      closed_at: null,
      tags: ['x'],
    });
  });

  it('keeps the columns in their order and leaves a date inside a document alone', () => {
    const when = new Date('2026-03-01T10:00:00.000Z');
    const view = withIsoDates({ b: when, a: 1, payload: { at: when } });
    expect(Object.keys(view)).toEqual(['b', 'a', 'payload']);
    expect(view.payload.at).toBe(when);
  });
});
