import type { DestructiveAction } from '../destructive-action';
import {
  type AntiNukeSettings,
  type AntiNukeWorkflowInput,
  DEFAULT_ANTINUKE_SETTINGS,
} from './antinuke-contract';
import { AntiNukeGuard } from './antinuke-guard';
import { validSettings } from './signal-checks';

const GUILD = '01a20182-0000-7000-8000-000000000001';
const RAIDER = '300000000000000001';
const TRUSTED_BOT = '300000000000000002';
const NOW = Date.parse('2026-11-25T10:00:00Z');

let nextEntry = 1;
function action(actor = RAIDER, fields: Partial<DestructiveAction> = {}): DestructiveAction {
  const n = nextEntry++;
  return {
    guild_id: GUILD,
    platform_guild_id: '900000000000000001',
    kind: 'channel_delete',
    ...fields,
    actor_platform_user_id: actor,
    target_id: null,
    audit_log_entry_id: `7000000000000${String(n).padStart(5, '0')}`,
    at: new Date(NOW + n).toISOString(),
  };
}

function legacyGuard(carried?: AntiNukeWorkflowInput['carried']): AntiNukeGuard {
  return new AntiNukeGuard(
    {
      guildId: GUILD,
      settings: { ...DEFAULT_ANTINUKE_SETTINGS, threshold: 3, window_seconds: 60 },
      entitlements: { detect: true, auto_action_allowed: true },
      carried,
    },
    { warn: jest.fn(), error: jest.fn() },
    { recordsTargets: true, scoresActions: false },
  );
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

describe(`${AntiNukeGuard.name} scoring`, () => {
  it('adds every kind an actor does into one score, weights included', () => {
    const sut = guard();
    sut.destructiveAction(action(RAIDER, { kind: 'webhook_create' }), NOW + 1_000);
    sut.destructiveAction(action(RAIDER, { kind: 'member_prune', weight: 2 }), NOW + 1_000);
    expect(sut.nextBurst()).toMatchObject({ actor_platform_user_id: RAIDER, kind: 'member_prune', score: 3 });
  });

  it('takes a missing or invalid weight as one', () => {
    const sut = guard();
    for (const weight of [undefined, 0, -5, 1.5])
      sut.destructiveAction(action(RAIDER, { weight }), NOW + 1_000);
    expect(sut.nextBurst()).toMatchObject({ count: 3, score: 3 });
  });

  it('in a run from before weights, counts each of the four old kinds on its own and nothing else', () => {
    const sut = legacyGuard();
    sut.destructiveAction(action(RAIDER, { kind: 'channel_delete' }), NOW + 1_000);
    sut.destructiveAction(action(RAIDER, { kind: 'role_delete' }), NOW + 1_000);
    for (let i = 0; i < 5; i++)
      sut.destructiveAction(action(RAIDER, { kind: 'webhook_create' }), NOW + 1_000);
    expect(sut.hasWork()).toBe(false);
    sut.destructiveAction(action(RAIDER, { kind: 'channel_delete' }), NOW + 1_000);
    sut.destructiveAction(action(RAIDER, { kind: 'channel_delete', weight: 50 }), NOW + 1_000);
    expect(sut.nextBurst()).toMatchObject({ kind: 'channel_delete', count: 3 });
  });

  it('takes over the windows a run from before weights carried', () => {
    const old = legacyGuard();
    old.destructiveAction(action(RAIDER, { kind: 'channel_delete' }), NOW + 1_000);
    old.destructiveAction(action(RAIDER, { kind: 'role_delete' }), NOW + 1_000);
    const carried = JSON.parse(
      JSON.stringify(old.continuation().carried),
    ) as AntiNukeWorkflowInput['carried'];
    const sut = new AntiNukeGuard({ ...old.continuation(), carried }, { warn: jest.fn(), error: jest.fn() });
    sut.destructiveAction(action(RAIDER, { kind: 'member_kick' }), NOW + 1_000);
    expect(sut.nextBurst()).toMatchObject({ kind: 'mixed', count: 3 });
  });
});
