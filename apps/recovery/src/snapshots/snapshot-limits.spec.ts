import { makeRoom } from './snapshot-limits';

const at = (minute: number) => new Date(Date.UTC(2026, 10, 29, 8, minute));

describe(makeRoom.name, () => {
  it('deletes nothing while one more fits', () => {
    expect(makeRoom([{ id: 'a', created_at: at(1), needed: false }], 3)).toEqual({ deleted: [], room: true });
  });

  it('deletes the oldest that nothing needs, just enough for one more', () => {
    const kept = [
      { id: 'c', created_at: at(3), needed: false },
      { id: 'a', created_at: at(1), needed: true },
      { id: 'b', created_at: at(2), needed: false },
      { id: 'd', created_at: at(4), needed: false },
    ];
    expect(makeRoom(kept, 3)).toEqual({ deleted: ['b', 'c'], room: true });
  });

  it('has no room when every kept snapshot is needed', () => {
    const kept = [
      { id: 'a', created_at: at(1), needed: true },
      { id: 'b', created_at: at(2), needed: true },
    ];
    expect(makeRoom(kept, 2)).toEqual({ deleted: [], room: false });
  });
});
