import { ValidationError } from '@lib/problem-details';
import { decodeKeysetCursor, encodeKeysetCursor, keysetPage, keysetStart } from './keyset-cursor';

describe('keyset cursor', () => {
  const id = '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';

  it('round-trips a position to the microsecond', () => {
    const position = { at: '2026-11-22T07:00:00.123456Z', id };
    expect(decodeKeysetCursor(encodeKeysetCursor(position))).toEqual(position);
  });

  it.each([
    ['not base64 of ours', 'abc'],
    ['a bad time', Buffer.from(`yesterday|${id}`).toString('base64url')],
    ['a time that is no date', Buffer.from(`2026-13-45T99:00:00Z|${id}`).toString('base64url')],
    // Date.parse takes these; Postgres refuses them (the fault suite's bad-input run found the 500).
    ['year zero', Buffer.from(`0000-11-24T01:17:03.692000Z|${id}`).toString('base64url')],
    ['February 30', Buffer.from(`2026-02-30T00:00:00Z|${id}`).toString('base64url')],
    ['November 31', Buffer.from(`2026-11-31T00:00:00Z|${id}`).toString('base64url')],
    ['a bad id', Buffer.from('2026-11-22T07:00:00.000Z|1 OR 1=1').toString('base64url')],
    ['extra parts', Buffer.from(`2026-11-22T07:00:00.000Z|${id}|x`).toString('base64url')],
  ])('refuses %s as a validation error', (_case, cursor) => {
    expect(() => decodeKeysetCursor(cursor)).toThrow(ValidationError);
  });
});

describe(keysetPage.name, () => {
  const rows = ['a', 'b', 'c'].map((name, index) => ({
    id: `0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5${index}`,
    cursor_at: `2026-11-22T07:00:0${index}.123456Z`,
    name,
  }));

  it('shows `limit` rows and points the cursor at the last one shown when a further row exists', () => {
    const page = keysetPage(rows, 2, (row) => row.name);
    expect(page.items).toEqual(['a', 'b']);
    expect(decodeKeysetCursor(page.next_cursor!)).toEqual({ at: rows[1].cursor_at, id: rows[1].id });
  });

  it('takes the key from another column when told', () => {
    const entries = rows.map(({ id, ...row }) => ({ ...row, event_id: id }));
    const page = keysetPage(
      entries,
      1,
      (row) => row.name,
      (row) => row.event_id,
    );
    expect(decodeKeysetCursor(page.next_cursor!)).toEqual({ at: rows[0].cursor_at, id: rows[0].id });
  });

  it('has no next cursor on the last page', () => {
    expect(keysetPage(rows, 3, (row) => row.name)).toEqual({ items: ['a', 'b', 'c'], next_cursor: null });
    expect(keysetPage([], 3, (row: (typeof rows)[number]) => row.name)).toEqual({
      items: [],
      next_cursor: null,
    });
  });

  it('starts a list at the cursor, or at the top without one', () => {
    expect(keysetStart(undefined)).toEqual({ at: null, id: null });
    const cursor = encodeKeysetCursor({ at: rows[0].cursor_at, id: rows[0].id });
    expect(keysetStart(cursor)).toEqual({ at: rows[0].cursor_at, id: rows[0].id });
    expect(() =>
      keysetStart(Buffer.from(`2026-02-30T00:00:00Z|${rows[0].id}`).toString('base64url')),
    ).toThrow(ValidationError);
  });
});
