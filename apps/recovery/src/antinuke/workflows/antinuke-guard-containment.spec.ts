import type { DestructiveAction } from '../destructive-action';
import {
  type AntiNukeActivities,
  type AntiNukeSettings,
  DEFAULT_ANTINUKE_SETTINGS,
  type OpenIncidentInput,
} from './antinuke-contract';
import { type AntiNukeRunHost, AntiNukeGuard } from './antinuke-guard';
import { guardGuild } from './incident-loop';
import { validSettings } from './signal-checks';

const GUILD = '01a20182-0000-7000-8000-000000000001';
const RAIDER = '300000000000000001';
const NOW = Date.parse('2026-11-25T10:00:00Z');

function action(n: number): DestructiveAction {
  return {
    guild_id: GUILD,
    platform_guild_id: '900000000000000001',
    kind: 'channel_delete',
    actor_platform_user_id: RAIDER,
    target_id: null,
    audit_log_entry_id: `70000000000000${String(n).padStart(4, '0')}`,
    at: new Date(NOW + n).toISOString(),
  };
}

/** One incident handled by a guard with these settings; the activities in the order they ran. */
async function incident(
  settings: Partial<AntiNukeSettings>,
  options: { containsFirst: boolean; autoActionAllowed?: boolean },
) {
  const calls: string[] = [];
  const opened: OpenIncidentInput[] = [];
  const activities: AntiNukeActivities = {
    takeIncidentSnapshot: () => (calls.push('snapshot'), Promise.resolve({ snapshotId: 'snap-1' })),
    removeActorRoles: () => (calls.push('removeActorRoles'), Promise.resolve({ taken: true, error: null })),
    quarantineActor: (input) => (
      calls.push(`quarantine:${input.mode}`),
      Promise.resolve({ taken: true, error: null, record: null })
    ),
    startIncidentLockdown: (input) => (
      calls.push(`lockdown:${input.minutes}`),
      Promise.reject(new Error('platform down'))
    ),
    openIncident: (input) => (calls.push('open'), opened.push(input), Promise.resolve()),
    recordIncidentTargets: () => Promise.resolve(),
  };
  const guard = new AntiNukeGuard(
    {
      guildId: GUILD,
      settings: { ...DEFAULT_ANTINUKE_SETTINGS, threshold: 2, window_seconds: 60, ...settings },
      entitlements: { detect: true, auto_action_allowed: options.autoActionAllowed ?? true },
    },
    { warn: jest.fn(), error: jest.fn() },
    { recordsTargets: true, scoresActions: true, containsFirst: options.containsFirst },
  );
  const log = { warn: jest.fn(), error: jest.fn() };
  let rollOver = false;
  const engine: AntiNukeRunHost = {
    activities,
    // Nothing to wait for: the burst is there at once, and once it is handled the run rolls over.
    waitUntil: (ready) => {
      if (!ready()) rollOver = true;
      return Promise.resolve();
    },
    shouldRollOver: () => rollOver,
    now: () => NOW,
    newIncidentId: () => '01a20182-0000-7000-8000-0000000000aa',
    log,
  };
  guard.destructiveAction(action(1), NOW);
  guard.destructiveAction(action(2), NOW);
  rollOver = false;
  const pending = guardGuild(guard, engine);
  rollOver = true;
  await pending;
  return { calls, opened, log };
}

describe('handleIncident containment', () => {
  it('quarantines before the snapshot, then locks down when the owner opted in', async () => {
    const { calls, opened, log } = await incident(
      { auto_action_enabled: true, auto_action_mode: 'kick', auto_lockdown_enabled: true },
      { containsFirst: true },
    );
    expect(calls).toEqual(['quarantine:kick', 'lockdown:60', 'snapshot', 'open']);
    // A failed lockdown is an operator alert; the incident opens all the same.
    expect(log.error).toHaveBeenCalledWith(
      'antinuke incident lockdown failed',
      expect.objectContaining({ alert: 'antinuke_lockdown_failed' }),
    );
    expect(opened[0]).toMatchObject({ autoActionTaken: true, snapshotId: 'snap-1' });
  });

  it('contains nothing while auto-action and the lockdown are off', async () => {
    const { calls } = await incident({ auto_action_enabled: false }, { containsFirst: true });
    expect(calls).toEqual(['snapshot', 'open']);
  });

  it('never locks down without the plan, even when the setting says so', async () => {
    const { calls } = await incident(
      { auto_action_enabled: true, auto_lockdown_enabled: true },
      { containsFirst: true, autoActionAllowed: false },
    );
    expect(calls).toEqual(['snapshot', 'open']);
  });

  it('replays a run started before containment in its own order: snapshot, then removeActorRoles', async () => {
    const { calls } = await incident(
      { auto_action_enabled: true, auto_lockdown_enabled: true },
      { containsFirst: false },
    );
    expect(calls).toEqual(['snapshot', 'removeActorRoles', 'open']);
  });
});

describe('containment settings carried by a signal', () => {
  it('keeps the current mode and lockdown switch for a signal from before them, or with bad values', () => {
    const current: AntiNukeSettings = {
      ...DEFAULT_ANTINUKE_SETTINGS,
      auto_action_mode: 'ban',
      auto_lockdown_enabled: true,
    };
    const old = { threshold: 4, window_seconds: 20, auto_action_enabled: true } as AntiNukeSettings;
    expect(validSettings(old, current)).toMatchObject({
      auto_action_mode: 'ban',
      auto_lockdown_enabled: true,
    });
    const bad = {
      ...current,
      auto_action_mode: 'nuke',
      auto_lockdown_enabled: 'yes',
    } as unknown as AntiNukeSettings;
    expect(validSettings(bad, DEFAULT_ANTINUKE_SETTINGS)).toMatchObject({
      auto_action_mode: 'quarantine',
      auto_lockdown_enabled: false,
    });
  });

  it('fills the defaults into a state carried over from a run before them', () => {
    const previous = { ...DEFAULT_ANTINUKE_SETTINGS } as Partial<AntiNukeSettings>;
    delete previous.auto_action_mode;
    delete previous.auto_lockdown_enabled;
    expect(validSettings(undefined, previous as AntiNukeSettings)).toMatchObject({
      auto_action_mode: 'quarantine',
      auto_lockdown_enabled: false,
    });
  });

  it('switches the automatic lockdown off with auto-action when the plan loses it', () => {
    const sut = new AntiNukeGuard(
      {
        guildId: GUILD,
        settings: { ...DEFAULT_ANTINUKE_SETTINGS, auto_action_enabled: true, auto_lockdown_enabled: true },
        entitlements: { detect: true, auto_action_allowed: true },
      },
      { warn: jest.fn(), error: jest.fn() },
    );
    expect(sut.autoLockdownOn()).toBe(true);
    sut.changeEntitlements({ detect: true, auto_action_allowed: false });
    expect(sut.state().settings).toMatchObject({ auto_action_enabled: false, auto_lockdown_enabled: false });
  });
});
