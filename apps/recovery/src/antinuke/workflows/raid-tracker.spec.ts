import type { DestructiveAction, DestructiveActionKind, MemberRolesRemoved } from '../destructive-action';
import { type AntiNukeWorkflowInput, DEFAULT_ANTINUKE_SETTINGS } from './antinuke-contract';
import { AntiNukeGuard } from './antinuke-guard';
import { MAX_RECENT_TARGETS, RaidTracker } from './raid-tracker';

const GUILD = '01a20182-0000-7000-8000-000000000001';
const RAIDER = '300000000000000001';
const MODERATOR = '300000000000000002';
const T0 = Date.parse('2026-11-25T10:00:00Z');
/** Members the raider acts on. */
const VICTIMS = ['400000000000000001', '400000000000000002', '400000000000000003', '400000000000000004'];
const MODS = '100000000000000011';

let nextEntry = 1;
const entryId = () => `7000000000000${String(nextEntry++).padStart(5, '0')}`;

function action(kind: DestructiveActionKind, seconds: number, target: string | null, actor = RAIDER) {
  return {
    guild_id: GUILD,
    platform_guild_id: '900000000000000001',
    kind,
    actor_platform_user_id: actor,
    target_id: target,
    audit_log_entry_id: entryId(),
    at: new Date(T0 + seconds * 1000).toISOString(),
  } satisfies DestructiveAction;
}

function stripped(seconds: number, member: string, actor = RAIDER): MemberRolesRemoved {
  return {
    guild_id: GUILD,
    platform_guild_id: '900000000000000001',
    actor_platform_user_id: actor,
    target_user_id: member,
    roles: [{ id: MODS, name: 'Mods' }],
    audit_log_entry_id: entryId(),
    at: new Date(T0 + seconds * 1000).toISOString(),
  };
}

function guard(input: Partial<AntiNukeWorkflowInput> = {}, recordsTargets = true): AntiNukeGuard {
  return new AntiNukeGuard(
    {
      guildId: GUILD,
      settings: { ...DEFAULT_ANTINUKE_SETTINGS, threshold: 3, window_seconds: 10 },
      entitlements: { detect: true, auto_action_allowed: false },
      ...input,
    },
    { warn: jest.fn(), error: jest.fn() },
    { recordsTargets, scoresActions: recordsTargets },
  );
}

const NOW = T0 + 3_600_000;

/** The guard's side of an incident, as guardGuild drives it: id minted, opened with its targets. */
function openIncident(sut: AntiNukeGuard, incidentId: string) {
  const burst = sut.nextBurst()!;
  sut.incidentStarting(burst, incidentId);
  return { burst, targets: sut.targetsToOpenWith(incidentId) };
}

describe('AntiNuke incident targets: what raiders do to members', () => {
  it('opens the incident with the bans of the burst and the roles stripped in the window before', () => {
    const sut = guard();
    sut.memberRolesRemoved(stripped(0, VICTIMS[3]), NOW);
    for (const [index, victim] of VICTIMS.slice(0, 3).entries())
      sut.destructiveAction(action('member_ban', index + 1, victim), NOW);

    const { burst, targets } = openIncident(sut, 'incident-1');
    expect(burst).toMatchObject({ kind: 'member_ban', count: 3 });
    expect(targets?.map((target) => [target.kind, target.target_user_id, target.role_name])).toEqual([
      ['member_role_remove', VICTIMS[3], 'Mods'],
      ['member_ban', VICTIMS[0], null],
      ['member_ban', VICTIMS[1], null],
      ['member_ban', VICTIMS[2], null],
    ]);
    expect(sut.hasWork()).toBe(false);
  });

  it('queues what the raider goes on to do for the open incident, until a window passes quietly', () => {
    const sut = guard();
    for (const seconds of [0, 1, 2]) sut.destructiveAction(action('channel_delete', seconds, null), NOW);
    expect(openIncident(sut, 'incident-1').targets).toEqual([]);

    sut.destructiveAction(action('member_kick', 5, VICTIMS[0]), NOW);
    sut.memberRolesRemoved(stripped(9, VICTIMS[1]), NOW);
    // Another member's moderator is no part of the raid.
    sut.destructiveAction(action('member_ban', 9, VICTIMS[2], MODERATOR), NOW);
    expect(sut.hasWork()).toBe(true);
    expect(sut.state().targets_pending).toBe(2);
    const batch = sut.nextTargets();
    expect(batch?.incidentId).toBe('incident-1');
    expect(batch?.targets.map((target) => [target.kind, target.target_user_id])).toEqual([
      ['member_kick', VICTIMS[0]],
      ['member_role_remove', VICTIMS[1]],
    ]);
    expect(sut.nextTargets()).toBeUndefined();
    expect(sut.hasWork()).toBe(false);

    // 10 quiet seconds after 9 s: the raid is over; a later strip opens nothing and joins nothing.
    sut.memberRolesRemoved(stripped(25, VICTIMS[3]), NOW);
    expect(sut.hasWork()).toBe(false);
    expect(sut.nextBurst()).toBeUndefined();
  });

  it('records the same entry once, and strips never open an incident', () => {
    const sut = guard();
    const strip = stripped(0, VICTIMS[0]);
    for (let second = 0; second < 5; second++) sut.memberRolesRemoved({ ...strip, at: strip.at }, NOW);
    for (const seconds of [1, 2, 3]) sut.memberRolesRemoved(stripped(seconds, VICTIMS[seconds]), NOW);
    expect(sut.nextBurst()).toBeUndefined();
    for (const seconds of [4, 5, 6]) sut.destructiveAction(action('role_delete', seconds, MODS), NOW);
    expect(openIncident(sut, 'incident-1').targets).toHaveLength(4);
    sut.memberRolesRemoved(strip, NOW);
    expect(sut.nextTargets()).toBeUndefined();
  });

  it('queues nothing more for an incident that could not be recorded', () => {
    const sut = guard();
    for (const seconds of [0, 1, 2]) sut.destructiveAction(action('channel_delete', seconds, null), NOW);
    openIncident(sut, 'incident-1');
    sut.incidentNotRecorded('incident-1');
    sut.destructiveAction(action('member_kick', 3, VICTIMS[0]), NOW);
    expect(sut.nextTargets()).toBeUndefined();
  });

  it('ignores strips by an exempt actor, while switched off, and of another guild', () => {
    const sut = guard({
      settings: {
        ...DEFAULT_ANTINUKE_SETTINGS,
        threshold: 3,
        window_seconds: 10,
        exempt_user_ids: [MODERATOR],
      },
    });
    for (const seconds of [0, 1, 2]) sut.destructiveAction(action('channel_delete', seconds, null), NOW);
    openIncident(sut, 'incident-1');
    sut.memberRolesRemoved(stripped(3, VICTIMS[0], MODERATOR), NOW);
    sut.memberRolesRemoved({ ...stripped(3, VICTIMS[0]), guild_id: 'another' }, NOW);
    expect(sut.nextTargets()).toBeUndefined();
    sut.changeSettings({ ...sut.state().settings, enabled: false });
    sut.memberRolesRemoved(stripped(4, VICTIMS[1]), NOW);
    expect(sut.nextTargets()).toBeUndefined();
  });

  it('carries the open raid over continue-as-new', () => {
    const sut = guard();
    for (const seconds of [0, 1, 2]) sut.destructiveAction(action('channel_delete', seconds, null), NOW);
    openIncident(sut, 'incident-1');
    const next = guard(JSON.parse(JSON.stringify(sut.continuation())) as AntiNukeWorkflowInput);
    next.destructiveAction(action('member_ban', 4, VICTIMS[0]), NOW);
    expect(next.nextTargets()).toMatchObject({
      incidentId: 'incident-1',
      targets: [{ kind: 'member_ban', target_user_id: VICTIMS[0] }],
    });
  });

  it('a run begun before targets records none (its history has no such activity)', () => {
    const sut = guard({}, false);
    for (const [index, victim] of VICTIMS.slice(0, 3).entries())
      sut.destructiveAction(action('member_ban', index, victim), NOW);
    sut.memberRolesRemoved(stripped(3, VICTIMS[3]), NOW);
    expect(openIncident(sut, 'incident-1').targets).toBeUndefined();
    sut.destructiveAction(action('member_ban', 4, VICTIMS[3]), NOW);
    expect(sut.hasWork()).toBe(false);
  });
});

describe(RaidTracker.name, () => {
  it('keeps at most MAX_RECENT_TARGETS of the last window', () => {
    const sut = new RaidTracker(60_000);
    for (let index = 0; index <= MAX_RECENT_TARGETS; index++) {
      sut.memberAction(RAIDER, {
        kind: 'member_kick',
        target_user_id: `4000000000${String(index).padStart(8, '0')}`,
        role_id: null,
        role_name: null,
        audit_log_entry_id: `entry-${index}`,
        at: T0 + index,
      });
    }
    expect(sut.state().recent).toHaveLength(MAX_RECENT_TARGETS);
    expect(sut.state().recent[0].audit_log_entry_id).toBe('entry-1');
  });
});
