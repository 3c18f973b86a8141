import type { DestructiveAction } from '../destructive-action';
import { type AntiNukeSettings, DEFAULT_ANTINUKE_SETTINGS } from './antinuke-contract';
import { AntiNukeGuard, validSettings } from './antinuke-guard';

const GUILD = '01a20182-0000-7000-8000-000000000001';
const RAIDER = '300000000000000001';
const TRUSTED_BOT = '300000000000000002';
const NOW = Date.parse('2026-11-25T10:00:00Z');

let nextEntry = 1;
function action(actor = RAIDER): DestructiveAction {
  const n = nextEntry++;
  return {
    guild_id: GUILD,
    platform_guild_id: '900000000000000001',
    kind: 'channel_delete',
    actor_platform_user_id: actor,
    target_id: null,
    audit_log_entry_id: `7000000000000${String(n).padStart(5, '0')}`,
    at: new Date(NOW + n).toISOString(),
  };
}

function guard(settings: Partial<AntiNukeSettings> = {}): AntiNukeGuard {
  return new AntiNukeGuard(
    {
      guildId: GUILD,
      settings: { ...DEFAULT_ANTINUKE_SETTINGS, threshold: 3, window_seconds: 60, ...settings },
      entitlements: { detect: true, auto_action_allowed: true },
    },
    { warn: jest.fn(), error: jest.fn() },
  );
}

function raid(sut: AntiNukeGuard, count: number, actor = RAIDER): void {
  for (let i = 0; i < count; i++) sut.destructiveAction(action(actor), NOW + 1_000);
}

describe(AntiNukeGuard.name, () => {
  it('opens a burst for an actor who is not exempt', () => {
    const sut = guard({ exempt_user_ids: [TRUSTED_BOT] });
    raid(sut, 3);
    expect(sut.nextBurst()).toMatchObject({ actor_platform_user_id: RAIDER, count: 3 });
    expect(sut.state()).toMatchObject({ actions_this_run: 3, actions_ignored_this_run: 0 });
  });

  it('never counts an exempt actor', () => {
    const sut = guard({ exempt_user_ids: [TRUSTED_BOT] });
    raid(sut, 10, TRUSTED_BOT);
    expect(sut.hasWork()).toBe(false);
    expect(sut.state()).toMatchObject({ actions_this_run: 10, actions_ignored_this_run: 10 });
  });

  it('counts nothing while switched off, and starts afresh when switched on again', () => {
    const sut = guard();
    raid(sut, 2);
    sut.changeSettings({ ...sut.state().settings, enabled: false });
    raid(sut, 5);
    expect(sut.hasWork()).toBe(false);
    expect(sut.state().actions_ignored_this_run).toBe(5);

    sut.changeSettings({ ...sut.state().settings, enabled: true });
    raid(sut, 2);
    expect(sut.hasWork()).toBe(false);
    raid(sut, 1);
    expect(sut.nextBurst()).toMatchObject({ count: 3 });
  });

  it('forgets what an actor did before they were made exempt', () => {
    const sut = guard();
    raid(sut, 2, TRUSTED_BOT);
    sut.changeSettings({ ...sut.state().settings, exempt_user_ids: [TRUSTED_BOT] });
    sut.changeSettings({ ...sut.state().settings, exempt_user_ids: [] });
    raid(sut, 1, TRUSTED_BOT);
    expect(sut.hasWork()).toBe(false);
  });

  it('runs an old run’s input, without the switch and the list, as on with nobody exempt', () => {
    const sut = new AntiNukeGuard(
      {
        guildId: GUILD,
        settings: { threshold: 3, window_seconds: 60, auto_action_enabled: false } as AntiNukeSettings,
        entitlements: { detect: true, auto_action_allowed: false },
      },
      { warn: jest.fn(), error: jest.fn() },
    );
    expect(sut.state().settings).toEqual({
      enabled: true,
      exempt_user_ids: [],
      threshold: 3,
      window_seconds: 60,
      auto_action_enabled: false,
      auto_action_mode: 'quarantine',
      auto_lockdown_enabled: false,
    });
    raid(sut, 3);
    expect(sut.hasWork()).toBe(true);
  });
});

describe(validSettings.name, () => {
  const current: AntiNukeSettings = { ...DEFAULT_ANTINUKE_SETTINGS, exempt_user_ids: [TRUSTED_BOT] };

  it('takes a valid setting whole, repeats dropped', () => {
    const next = {
      enabled: false,
      exempt_user_ids: [RAIDER, RAIDER],
      threshold: 5,
      window_seconds: 30,
      auto_action_enabled: true,
      auto_action_mode: 'ban' as const,
      auto_lockdown_enabled: true,
    };
    expect(validSettings(next, current)).toEqual({ ...next, exempt_user_ids: [RAIDER] });
  });

  it.each([
    ['not a list', 'nope'],
    ['too long', Array.from({ length: 51 }, (_, i) => `3000000000000${String(i).padStart(5, '0')}`)],
    ['a bad id', [RAIDER, '12']],
    ['a number', [300000001]],
  ])('keeps the current list for a signalled list that is %s', (_why, exempt) => {
    const next = { ...current, enabled: 'no', exempt_user_ids: exempt } as unknown as AntiNukeSettings;
    expect(validSettings(next, current)).toEqual(current);
  });
});
