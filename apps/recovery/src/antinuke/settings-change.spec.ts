import { DEFAULT_ANTINUKE_SETTINGS, type AntiNukeSettings } from './workflows/antinuke-contract';
import { newlyExempted, settingsChange } from './settings-change';

const base: AntiNukeSettings = {
  ...DEFAULT_ANTINUKE_SETTINGS,
  exempt_user_ids: ['100000000000000001'],
  auto_lockdown_enabled: true,
};
const change = (after: Partial<AntiNukeSettings>) => settingsChange(base, { ...base, ...after });

describe('settingsChange', () => {
  it('finds nothing changed in the same setting', () => {
    expect(change({})).toEqual({
      fields: {
        enabled: 'unchanged',
        exempt_user_ids: 'unchanged',
        threshold: 'unchanged',
        window_seconds: 'unchanged',
        auto_action_enabled: 'unchanged',
        auto_action_mode: 'unchanged',
        auto_lockdown_enabled: 'unchanged',
      },
      loosened: [],
      tightened: [],
    });
  });

  it.each<[string, Partial<AntiNukeSettings>, keyof AntiNukeSettings]>([
    ['switching AntiNuke off', { enabled: false }, 'enabled'],
    [
      'exempting someone more',
      { exempt_user_ids: ['100000000000000001', '100000000000000002'] },
      'exempt_user_ids',
    ],
    ['raising the threshold', { threshold: base.threshold + 1 }, 'threshold'],
    ['narrowing the window', { window_seconds: base.window_seconds - 1 }, 'window_seconds'],
    ['switching the lockdown on an incident off', { auto_lockdown_enabled: false }, 'auto_lockdown_enabled'],
  ])('calls %s loosening', (_name, after, field) => {
    const result = change(after);
    expect(result.loosened).toEqual([field]);
    expect(result.tightened).toEqual([]);
  });

  it('calls a milder auto-action loosening, and a harsher one tightening', () => {
    const ban = { ...base, auto_action_mode: 'ban' as const };
    expect(settingsChange(ban, { ...ban, auto_action_mode: 'kick' }).loosened).toEqual(['auto_action_mode']);
    expect(settingsChange(base, { ...base, auto_action_mode: 'kick' }).tightened).toEqual([
      'auto_action_mode',
    ]);
  });

  it('calls switching auto-action off loosening, and on tightening', () => {
    const on = { ...base, auto_action_enabled: true };
    expect(settingsChange(on, base).loosened).toEqual(['auto_action_enabled']);
    expect(settingsChange(base, on).tightened).toEqual(['auto_action_enabled']);
  });

  it.each<[string, Partial<AntiNukeSettings>, keyof AntiNukeSettings]>([
    ['lowering the threshold', { threshold: base.threshold - 1 }, 'threshold'],
    ['widening the window', { window_seconds: base.window_seconds + 5 }, 'window_seconds'],
    ['removing an exemption', { exempt_user_ids: [] }, 'exempt_user_ids'],
  ])('calls %s tightening', (_name, after, field) => {
    const result = change(after);
    expect(result.tightened).toEqual([field]);
    expect(result.loosened).toEqual([]);
  });

  it('calls switching AntiNuke back on tightening', () => {
    expect(settingsChange({ ...base, enabled: false }, base).tightened).toEqual(['enabled']);
  });

  it('calls a swapped exemption loosening: someone new is ignored', () => {
    expect(change({ exempt_user_ids: ['100000000000000002'] }).fields.exempt_user_ids).toBe('loosening');
  });

  it('reports a mixed change field by field', () => {
    const result = change({ threshold: 10, window_seconds: 60, enabled: false });
    expect(result.loosened).toEqual(['enabled', 'threshold']);
    expect(result.tightened).toEqual(['window_seconds']);
  });

  it('ignores the order of exemptions', () => {
    const two = { ...base, exempt_user_ids: ['100000000000000001', '100000000000000002'] };
    const reversed = { ...base, exempt_user_ids: ['100000000000000002', '100000000000000001'] };
    expect(settingsChange(two, reversed).fields.exempt_user_ids).toBe('unchanged');
  });
});

describe('newlyExempted', () => {
  it('lists only the ids the new setting adds', () => {
    expect(
      newlyExempted(base, { ...base, exempt_user_ids: ['100000000000000002', '100000000000000001'] }),
    ).toEqual(['100000000000000002']);
    expect(newlyExempted(base, { ...base, exempt_user_ids: [] })).toEqual([]);
  });
});
