import type { DestructiveActionKind } from '../destructive-action';
import { BurstDetector, type CountedAction } from './burst-detector';

const T0 = Date.parse('2026-11-22T10:00:00Z');
const RAIDER = '300000000000000001';
const OTHER = '300000000000000002';

let nextEntry = 1;
function action(
  secondsAfterT0: number,
  actor = RAIDER,
  kind: DestructiveActionKind = 'channel_delete',
  id = `entry-${nextEntry++}`,
): CountedAction {
  return { kind, actor_platform_user_id: actor, audit_log_entry_id: id, at: T0 + secondsAfterT0 * 1000 };
}

describe(BurstDetector.name, () => {
  let sut: BurstDetector;

  beforeEach(() => {
    sut = new BurstDetector({ threshold: 3, window_seconds: 10 });
  });

  it('opens a burst on the third action of one kind by one actor within the window', () => {
    const first = action(0);
    const second = action(4);
    const third = action(9);
    expect(sut.record(first)).toEqual({ result: 'counted' });
    expect(sut.record(second)).toEqual({ result: 'counted' });
    expect(sut.record(third)).toEqual({
      result: 'burst',
      burst: {
        kind: 'channel_delete',
        actor_platform_user_id: RAIDER,
        count: 3,
        audit_log_entry_ids: [first.audit_log_entry_id, second.audit_log_entry_id, third.audit_log_entry_id],
        first_at: first.at,
        last_at: third.at,
      },
    });
  });

  it('does not count actions a whole window apart together', () => {
    expect(sut.record(action(0)).result).toBe('counted');
    expect(sut.record(action(5)).result).toBe('counted');
    // 10 s after the first: the first has left the window.
    expect(sut.record(action(10)).result).toBe('counted');
    expect(sut.record(action(14)).result).toBe('burst');
  });

  it('counts each actor and each kind on its own', () => {
    for (const outcome of [
      sut.record(action(0, RAIDER, 'channel_delete')),
      sut.record(action(1, RAIDER, 'role_delete')),
      sut.record(action(2, OTHER, 'channel_delete')),
      sut.record(action(3, RAIDER, 'channel_delete')),
      sut.record(action(4, OTHER, 'channel_delete')),
      sut.record(action(5, RAIDER, 'role_delete')),
      sut.record(action(6, OTHER, 'member_ban')),
    ]) {
      expect(outcome.result).toBe('counted');
    }
    expect(sut.trackedKeys).toBe(4);
  });

  it('counts a repeated audit-log entry once', () => {
    const first = action(0);
    const second = action(1);
    sut.record(first);
    sut.record(second);
    expect(sut.record({ ...second })).toEqual({ result: 'duplicate' });
    expect(sut.record({ ...first, at: first.at + 2000 })).toEqual({ result: 'duplicate' });
    expect(sut.record(action(3)).result).toBe('burst');
  });

  it('opens one incident per burst until the window passes quietly', () => {
    for (const seconds of [0, 1, 2]) sut.record(action(seconds));
    // The raid goes on, each action within 10 s of the last: the same burst.
    for (const seconds of [3, 8, 15, 24, 33])
      expect(sut.record(action(seconds)).result).toBe('in_open_burst');
    // 10 quiet seconds after 33 s: a new burst may open.
    expect(sut.record(action(43)).result).toBe('counted');
    expect(sut.record(action(44)).result).toBe('counted');
    expect(sut.record(action(45))).toMatchObject({ result: 'burst', burst: { count: 3 } });
  });

  it('an open burst of one kind does not hide another kind by the same actor', () => {
    for (const seconds of [0, 1, 2]) sut.record(action(seconds, RAIDER, 'channel_delete'));
    sut.record(action(3, RAIDER, 'role_delete'));
    sut.record(action(4, RAIDER, 'role_delete'));
    expect(sut.record(action(5, RAIDER, 'role_delete'))).toMatchObject({
      result: 'burst',
      burst: { kind: 'role_delete' },
    });
  });

  it('takes actions reported out of order, and ignores those a window behind the newest', () => {
    expect(sut.record(action(20)).result).toBe('counted');
    expect(sut.record(action(9)).result).toBe('stale');
    expect(sut.record(action(12)).result).toBe('counted');
    expect(sut.record(action(15))).toMatchObject({
      result: 'burst',
      burst: { first_at: T0 + 12_000, last_at: T0 + 20_000 },
    });
  });

  it('applies a new threshold and window to what it already counted', () => {
    sut.record(action(0));
    sut.record(action(5));
    sut.configure({ threshold: 3, window_seconds: 60 });
    // 40 s is 40 s after the first: far outside the old window, inside the new one.
    expect(sut.record(action(40))).toMatchObject({ result: 'burst', burst: { count: 3 } });
    sut.configure({ threshold: 2, window_seconds: 1 });
    expect(sut.record(action(50, OTHER)).result).toBe('counted');
    expect(sut.record(action(50.5, OTHER)).result).toBe('burst');
  });

  it('forgets what is a window behind, so a long-lived guild keeps only recent actions', () => {
    for (let index = 0; index < 100; index++) sut.record(action(index * 11, `4000000000000${index}`));
    expect(sut.trackedKeys).toBe(1);
  });

  it('carries its windows over a continue-as-new as plain JSON', () => {
    const first = action(0);
    sut.record(first);
    sut.record(action(1));
    const carried = JSON.parse(JSON.stringify(sut.state())) as ReturnType<BurstDetector['state']>;
    const next = new BurstDetector({ threshold: 3, window_seconds: 10 }, carried);
    expect(next.record({ ...first })).toEqual({ result: 'duplicate' });
    expect(next.record(action(2)).result).toBe('burst');
    expect(next.record(action(3)).result).toBe('in_open_burst');
    const again = new BurstDetector(
      { threshold: 3, window_seconds: 10 },
      JSON.parse(JSON.stringify(next.state())) as ReturnType<BurstDetector['state']>,
    );
    expect(again.record(action(4)).result).toBe('in_open_burst');
  });

  it('forgets one actor, or everyone, when told', () => {
    sut.record(action(0));
    sut.record(action(1));
    sut.record(action(1, OTHER));
    sut.record(action(2, OTHER));
    sut.forgetActor(RAIDER);
    expect(sut.record(action(3)).result).toBe('counted');
    expect(sut.record(action(3, OTHER)).result).toBe('burst');
    sut.forgetAll();
    expect(sut.trackedKeys).toBe(0);
    expect(sut.record(action(4, OTHER)).result).toBe('counted');
  });
});
