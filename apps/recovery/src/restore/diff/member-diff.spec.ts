import type { PlatformBan, PlatformMember } from '@lib/chat-platform';
import type { RestoreScope } from '@lib/contracts';
import { encodeMemberRoles } from '../../snapshots/member-roles-codec';
import type { SnapshotPayload } from '../../snapshots/snapshot-payload';
import { guildState, MEMBERS, MODS, role } from '../../sync/guild-state.fixture';
import { type BotStanding, type DiffInput, type IdReplacement, SKIP_REASON } from './diff-model';
import { SnapshotIdResolution } from './id-resolution';
import { LiveLookup } from './live-lookup';
import { planBans, planMemberRoles } from './member-diff';
import { computeRestoreDiff } from '../restore-diff';

const ADMINS = '100000000000000013';
const [ANN, BOB, CAT, DAN] = [
  '300000000000000001',
  '300000000000000002',
  '300000000000000003',
  '300000000000000004',
];
const RAIDED = '300000000000000009';
const BOT: BotStanding = {
  highestRolePosition: 3,
  permissions: 8n,
  isOwner: false,
  userId: '900',
  roleIds: [],
};

function member(id: string, roles: string[], nick: string | null = null): PlatformMember {
  return { user: { id, username: `user${id.slice(-1)}`, global_name: null, bot: false }, roles, nick };
}

function ban(id: string, reason: string | null = null): PlatformBan {
  return { user: { id, username: `user${id.slice(-1)}`, global_name: null, bot: false }, reason };
}

/** The snapshot: Ann a member and mod, Bob a member, Cat an admin (above the bot), Dan banned. */
function snapshot(): SnapshotPayload {
  const state = guildState();
  state.roles.push(role(ADMINS, 'admins', 4));
  return {
    version: 2,
    snapshot_at: '2026-11-01T00:00:00.000Z',
    ...state,
    member_roles: encodeMemberRoles([
      { id: ANN, roles: [MEMBERS, MODS] },
      { id: BOB, roles: [MEMBERS] },
      { id: CAT, roles: [ADMINS] },
    ]),
    bans: [{ user_id: DAN, reason: 'spam' }],
  };
}

function input(fields: Partial<DiffInput> & { replacements?: IdReplacement[] } = {}): DiffInput {
  const live = fields.live ?? { ...guildState(), roles: [...guildState().roles, role(ADMINS, 'admins', 4)] };
  return {
    target: snapshot(),
    live,
    scope: ['member_roles', 'bans'] as RestoreScope[],
    ids: new SnapshotIdResolution(live, fields.replacements ?? []),
    bot: BOT,
    members: [member(ANN, [MEMBERS]), member(BOB, [], 'Bobby'), member(CAT, [ADMINS])],
    bans: [ban(DAN, 'spam'), ban(RAIDED, 'raid')],
    ...fields,
  };
}

describe('members’ roles in the restore diff', () => {
  it('gives each member in one update every role they held and lack, counted per role with names', () => {
    const given = input();
    const { updates, section } = planMemberRoles(given, new LiveLookup(given), new Set());

    expect(updates).toEqual([
      { member_id: ANN, current: [MEMBERS], add: [MODS] },
      { member_id: BOB, current: [], add: [MEMBERS] },
    ]);
    expect(section.members_to_update).toBe(2);
    // Cat still holds admins, above the bot: nothing to give her, nothing to report.
    expect(section.skipped).toEqual([]);
    expect(section.member_roles_to_restore).toEqual([
      { role_id: MODS, role_name: 'mods', members: 1, sample: ['user1'] },
      { role_id: MEMBERS, role_name: 'members', members: 1, sample: ['Bobby'] },
    ]);
  });

  it('passes over a role above the bot’s highest, saying so, and touches nobody who has all theirs', () => {
    const given = input({ members: [member(ANN, [MEMBERS, MODS]), member(BOB, [MEMBERS]), member(CAT, [])] });
    const { updates, section } = planMemberRoles(given, new LiveLookup(given), new Set());

    expect(updates).toEqual([]);
    expect(section.skipped).toEqual([
      { scope: 'member_roles', id: ADMINS, name: 'admins', reason: SKIP_REASON.aboveBot },
    ]);
  });

  it('gives a recreated role under its new id, and counts a role this restore makes as given', () => {
    const live = guildState();
    live.roles = live.roles.filter((r) => r.id !== MODS && r.id !== MEMBERS);
    live.roles.push(role('100000000000000099', 'mods', 2), role(ADMINS, 'admins', 4));
    const given = input({
      live,
      replacements: [{ kind: 'role', original_id: MODS, replacement_id: '100000000000000099' }],
      members: [member(ANN, []), member(BOB, [])],
    });

    const { updates } = planMemberRoles(given, new LiveLookup(given), new Set([MEMBERS]));

    expect(updates).toEqual([
      { member_id: ANN, current: [], add: ['100000000000000099', MEMBERS] },
      { member_id: BOB, current: [], add: [MEMBERS] },
    ]);
  });

  it('gives a role this restore makes even when the raid left the bot’s role at the bottom', () => {
    const live = guildState();
    live.roles = live.roles.filter((r) => r.id !== MODS && r.id !== MEMBERS);
    const given = input({
      live,
      bot: { highestRolePosition: 1, permissions: 8n, isOwner: false, userId: '900', roleIds: [] },
      members: [member(BOB, [])],
    });
    const { updates, section } = planMemberRoles(given, new LiveLookup(given), new Set([MEMBERS]));
    expect(updates).toEqual([{ member_id: BOB, current: [], add: [MEMBERS] }]);
    expect(section.skipped.map((item) => item.id)).not.toContain(MEMBERS);
  });

  it('reports members no longer in the guild rather than adding them back', () => {
    const given = input({ members: [member(ANN, [MEMBERS, MODS])] });
    const { section } = planMemberRoles(given, new LiveLookup(given), new Set());
    expect(section.members_absent).toBe(2);
  });

  it('says why when the snapshot has no members’ roles', () => {
    const target: SnapshotPayload = { ...snapshot(), member_roles: undefined, version: 1 };
    const given = input({ target });
    expect(planMemberRoles(given, new LiveLookup(given), new Set()).section.skipped).toEqual([
      expect.objectContaining({ scope: 'member_roles', reason: SKIP_REASON.notInSnapshot }),
    ]);
  });

  it('lifts only the bans made since the snapshot', () => {
    expect(planBans(input()).bans_to_lift).toEqual([{ user_id: RAIDED, name: 'user9', reason: 'raid' }]);
  });

  it('lifts nothing when the bot may not read the bans, and says why', () => {
    const result = planBans(input({ bans: { unreadable: 'no Ban Members' } }));
    expect(result.bans_to_lift).toEqual([]);
    expect(result.skipped).toEqual([expect.objectContaining({ scope: 'bans', reason: 'no Ban Members' })]);
  });

  it('is in the diff only for its scopes', () => {
    const diff = computeRestoreDiff({ ...input(), scope: ['roles'] });
    expect(diff.member_roles_to_restore).toEqual([]);
    expect(diff.bans_to_lift).toEqual([]);
    expect(computeRestoreDiff(input()).members_to_update).toBe(2);
  });
});
