import fc from 'fast-check';
import type { DestructiveActionKind } from '../destructive-action';
import type { BurstDetectorState, RaidScoreState } from './antinuke-contract';
import { dominantKind, LONG_WINDOW_FACTOR, LONG_WINDOW_MS, RaidScore, type ScoredAction } from './raid-score';

const T0 = Date.parse('2026-11-22T10:00:00Z');
const RAIDER = '300000000000000001';
const OTHER = '300000000000000002';
const SETTINGS = { threshold: 3, window_seconds: 10 };

let nextEntry = 1;
function action(
  secondsAfterT0: number,
  kind: DestructiveActionKind = 'channel_delete',
  weight = 1,
  actor = RAIDER,
  id = `entry-${nextEntry++}`,
): ScoredAction {
  return {
    kind,
    weight,
    actor_platform_user_id: actor,
    audit_log_entry_id: id,
    at: T0 + secondsAfterT0 * 1000,
  };
}

const json = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

describe(RaidScore.name, () => {
  let sut: RaidScore;

  beforeEach(() => {
    sut = new RaidScore(SETTINGS);
  });

  it('adds one actor’s actions of different kinds into one score', () => {
    const first = action(0, 'channel_delete');
    const second = action(3, 'webhook_create');
    const third = action(6, 'member_role_remove');
    expect(sut.record(first)).toEqual({ result: 'counted' });
    expect(sut.record(second)).toEqual({ result: 'counted' });
    expect(sut.record(third)).toEqual({
      result: 'burst',
      burst: {
        kind: 'mixed',
        actor_platform_user_id: RAIDER,
        count: 3,
        score: 3,
        audit_log_entry_ids: [first, second, third].map((counted) => counted.audit_log_entry_id),
        first_at: first.at,
        last_at: third.at,
      },
    });
  });

  it('names the kind that weighs more than half of the burst', () => {
    sut.record(action(0, 'member_ban'));
    expect(sut.record(action(1, 'member_prune', 5))).toMatchObject({
      result: 'burst',
      burst: { kind: 'member_prune', count: 2, score: 6 },
    });
  });

  it('opens a burst on one action heavy enough on its own', () => {
    expect(sut.record(action(0, 'permission_grant', 50))).toMatchObject({
      result: 'burst',
      burst: { kind: 'permission_grant', count: 1, score: 50 },
    });
  });

  it('counts each actor on their own', () => {
    sut.record(action(0, 'channel_delete', 1, RAIDER));
    sut.record(action(1, 'channel_delete', 1, OTHER));
    sut.record(action(2, 'role_delete', 1, RAIDER));
    expect(sut.record(action(3, 'role_delete', 1, OTHER)).result).toBe('counted');
    expect(sut.trackedActors).toBe(2);
  });

  it('catches a raid paced under the short window within the long one', () => {
    // Two actions every 11 s: never three within 10 s; the ninth within ten minutes is a raid.
    const outcomes = Array.from({ length: 9 }, (_, index) =>
      sut.record(action(Math.floor(index / 2) * 11 + (index % 2), 'member_kick')),
    );
    expect(outcomes.slice(0, 8).map((outcome) => outcome.result)).toEqual(Array(8).fill('counted'));
    expect(outcomes[8]).toMatchObject({
      result: 'burst',
      burst: { kind: 'member_kick', count: SETTINGS.threshold * LONG_WINDOW_FACTOR },
    });
  });

  it('does not count a long window apart together', () => {
    sut.record(action(0));
    sut.record(action(11));
    expect(sut.record(action(LONG_WINDOW_MS / 1000 + 1)).result).toBe('counted');
  });

  it('keeps a burst found in the short window open until the actor is quiet for it', () => {
    for (const seconds of [0, 1, 2]) sut.record(action(seconds));
    for (const seconds of [3, 8, 15, 24])
      expect(sut.record(action(seconds, 'role_delete')).result).toBe('in_open_burst');
    // 10 quiet seconds: the actions of the burst are not counted again, a new one needs a new score.
    expect(sut.record(action(34)).result).toBe('counted');
    expect(sut.record(action(35)).result).toBe('counted');
    expect(sut.record(action(36))).toMatchObject({ result: 'burst', burst: { count: 3 } });
  });

  it('keeps a burst found in the long window open until the actor is quiet for the long window', () => {
    for (let index = 0; index < 9; index++) sut.record(action(index * 11));
    expect(sut.record(action(9 * 11 + 60)).result).toBe('in_open_burst');
    expect(sut.record(action(9 * 11 + 60 + LONG_WINDOW_MS / 1000 - 1)).result).toBe('in_open_burst');
  });

  it('counts a repeated audit-log entry once', () => {
    const first = action(0);
    sut.record(first);
    sut.record(action(1));
    expect(sut.record({ ...first, at: first.at + 2000 })).toEqual({ result: 'duplicate' });
    expect(sut.record(action(2)).result).toBe('burst');
  });

  it('ignores actions a long window behind the newest', () => {
    sut.record(action(LONG_WINDOW_MS / 1000 + 5));
    expect(sut.record(action(5)).result).toBe('stale');
    expect(sut.record(action(6)).result).toBe('counted');
  });

  it('applies a new threshold and window to what it already counted', () => {
    sut.record(action(0));
    sut.record(action(20));
    sut.configure({ threshold: 3, window_seconds: 60 });
    expect(sut.record(action(40))).toMatchObject({ result: 'burst', burst: { count: 3 } });
  });

  it('forgets one actor, or everyone, when told', () => {
    sut.record(action(0));
    sut.record(action(1));
    sut.record(action(1, 'member_ban', 1, OTHER));
    sut.record(action(2, 'member_ban', 1, OTHER));
    sut.forgetActor(RAIDER);
    expect(sut.record(action(3)).result).toBe('counted');
    expect(sut.record(action(3, 'member_ban', 1, OTHER)).result).toBe('burst');
    sut.forgetAll();
    expect(sut.trackedActors).toBe(0);
  });

  it('carries its scores and open bursts over a continue-as-new as plain JSON', () => {
    const first = action(0);
    sut.record(first);
    sut.record(action(1));
    const next = new RaidScore(SETTINGS, json(sut.state()));
    expect(next.record({ ...first })).toEqual({ result: 'duplicate' });
    expect(next.record(action(2)).result).toBe('burst');
    const again = new RaidScore(SETTINGS, json(next.state()));
    expect(again.record(action(4)).result).toBe('in_open_burst');
  });

  it('takes over the per-kind windows of a run from before weights', () => {
    const legacy: BurstDetectorState = {
      latest_at: T0 + 2000,
      windows: [
        { key: `channel_delete|${RAIDER}`, actions: [{ id: 'old-1', at: T0 + 1000 }], burst_last_at: null },
        { key: `role_delete|${RAIDER}`, actions: [{ id: 'old-2', at: T0 + 2000 }], burst_last_at: null },
        { key: `member_ban|${OTHER}`, actions: [{ id: 'old-3', at: T0 + 2000 }], burst_last_at: T0 + 2000 },
      ],
    };
    const taken = new RaidScore(SETTINGS, legacy);
    expect(taken.record(action(2.5, 'channel_delete', 1, RAIDER, 'old-1')).result).toBe('duplicate');
    expect(taken.record(action(3, 'member_kick', 1, OTHER)).result).toBe('in_open_burst');
    expect(taken.record(action(3, 'member_kick', 1, RAIDER))).toMatchObject({
      result: 'burst',
      burst: { count: 3, audit_log_entry_ids: ['old-1', 'old-2', expect.any(String)] },
    });
  });

  describe('properties', () => {
    const kinds: DestructiveActionKind[] = ['channel_delete', 'member_ban', 'webhook_create', 'bot_add'];
    const stream = fc.array(
      fc.record({
        seconds: fc.integer({ min: 0, max: 1_800 }),
        kind: fc.constantFrom(...kinds),
        weight: fc.integer({ min: 1, max: 5 }),
        actor: fc.constantFrom(RAIDER, OTHER),
      }),
      { maxLength: 60 },
    );
    const toActions = (
      items: { seconds: number; kind: DestructiveActionKind; weight: number; actor: string }[],
    ) => items.map((item, index) => action(item.seconds, item.kind, item.weight, item.actor, `p-${index}`));

    it('decides the same whether or not it continued as new between any two actions', () => {
      fc.assert(
        fc.property(stream, fc.nat(), (items, cut) => {
          const actions = toActions(items);
          const whole = new RaidScore(SETTINGS);
          const expected = actions.map((counted) => whole.record(counted));
          let split = new RaidScore(SETTINGS);
          const at = actions.length === 0 ? 0 : cut % actions.length;
          const got = actions.map((counted, index) => {
            if (index === at) split = new RaidScore(SETTINGS, json<RaidScoreState>(split.state()));
            return split.record(counted);
          });
          expect(got).toEqual(expected);
        }),
      );
    });

    it('opens a burst only when one actor’s counted weights reach a threshold within a window', () => {
      fc.assert(
        fc.property(stream, (items) => {
          const actions = toActions(items).sort((a, b) => a.at - b.at);
          const score = new RaidScore(SETTINGS);
          for (const counted of actions) {
            const outcome = score.record(counted);
            if (outcome.result !== 'burst') continue;
            const { burst } = outcome;
            const span = burst.last_at - burst.first_at;
            expect(burst.actor_platform_user_id).toBe(counted.actor_platform_user_id);
            expect(burst.audit_log_entry_ids).toContain(counted.audit_log_entry_id);
            if (span < SETTINGS.window_seconds * 1000) {
              expect(burst.score).toBeGreaterThanOrEqual(SETTINGS.threshold);
            } else {
              expect(span).toBeLessThan(LONG_WINDOW_MS);
              expect(burst.score).toBeGreaterThanOrEqual(SETTINGS.threshold * LONG_WINDOW_FACTOR);
            }
          }
        }),
      );
    });

    it('never lets an actor reach the threshold within the short window without a burst', () => {
      fc.assert(
        fc.property(stream, (items) => {
          const actions = toActions(items).sort((a, b) => a.at - b.at);
          const score = new RaidScore(SETTINGS);
          // Since the actor's last burst (or the start), their weights within any short window.
          const since = new Map<string, ScoredAction[]>();
          for (const counted of actions) {
            const actor = counted.actor_platform_user_id;
            const outcome = score.record(counted);
            if (outcome.result === 'burst' || outcome.result === 'in_open_burst') {
              since.set(actor, []);
              continue;
            }
            const recent = [...(since.get(actor) ?? []), counted];
            since.set(actor, recent);
            const inWindow = recent.filter(
              (earlier) => counted.at - earlier.at < SETTINGS.window_seconds * 1000,
            );
            expect(inWindow.reduce((sum, earlier) => sum + earlier.weight, 0)).toBeLessThan(
              SETTINGS.threshold,
            );
          }
        }),
      );
    });
  });
});

describe(dominantKind.name, () => {
  it('is the kind weighing more than half, else mixed', () => {
    expect(
      dominantKind([
        { kind: 'member_ban', weight: 2 },
        { kind: 'emoji_delete', weight: 1 },
      ]),
    ).toBe('member_ban');
    expect(
      dominantKind([
        { kind: 'member_ban', weight: 1 },
        { kind: 'emoji_delete', weight: 1 },
      ]),
    ).toBe('mixed');
  });
});
