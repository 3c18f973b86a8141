import type { PlatformMember, PlatformUser } from '@lib/chat-platform';
import type { Unreadable } from '../../snapshots/guild-membership';
import { type SnapshotPayload, snapshotMemberRoles } from '../../snapshots/snapshot-payload';
import {
  type BanItem,
  type DiffInput,
  type MemberRoleItem,
  type RestoreDiff,
  SKIP_REASON,
  type SkippedItem,
} from './diff-model';
import type { LiveLookup } from './live-lookup';
import { compareIds } from './ordering';

/** Names shown per role in the preview. */
export const MEMBER_SAMPLE_SIZE = 5;

/** One member's update: the roles to give back, as live ids (a role still to be made: its snapshot id). */
export interface MemberRoleUpdate {
  member_id: string;
  /** The member's roles as read, to which `add` is added in the one call that sets them. */
  current: string[];
  add: string[];
}

type MemberSection = Pick<
  RestoreDiff,
  'member_roles_to_restore' | 'members_to_update' | 'members_absent' | 'skipped'
>;

export function emptyMemberSection(): MemberSection {
  return { member_roles_to_restore: [], members_to_update: 0, members_absent: 0, skipped: [] };
}

/**
 * Who gets which role back (scope `member_roles`): every member in the guild now who held a role in
 * the snapshot and lacks it, the role as it lives now (recreated under a new id, or still to be
 * made by this restore: `pendingRoles`). Only roles are added: a role a member gained since stays.
 * A role the bot cannot assign (managed, above its highest role, or not restored) is skipped.
 */
export function planMemberRoles(
  input: DiffInput,
  lookup: LiveLookup,
  pendingRoles: ReadonlySet<string>,
): { updates: MemberRoleUpdate[]; section: MemberSection } {
  const section = emptyMemberSection();
  const updates: MemberRoleUpdate[] = [];
  const held = snapshotMemberRoles(input.target);
  const members = input.members;
  if (held === null || !Array.isArray(members)) {
    section.skipped.push(
      wholeScope('member_roles', input, unavailable('member_roles', input.target, members)),
    );
    return { updates, section };
  }

  // Each snapshot role a member may get back, as its id for the update (live, or the snapshot's
  // while pending); and why the others cannot be given.
  const assignable = new Map<string, string>();
  const refused = new Map<string, string>();
  const everyoneId = input.target.guild.id;
  for (const role of input.target.roles) {
    if (role.id === everyoneId || role.managed) continue;
    const live = lookup.role(role.id);
    // A role this restore makes is made below the bot's highest role, so the bot may give it.
    if (live === undefined) {
      if (pendingRoles.has(role.id)) assignable.set(role.id, role.id);
      else refused.set(role.id, SKIP_REASON.roleNotRestored);
    } else if (!input.bot.isOwner && live.position >= input.bot.highestRolePosition) {
      // Known by its live id all the same, so a member who still holds it is not counted as missing it.
      refused.set(role.id, SKIP_REASON.aboveBot);
      assignable.set(role.id, live.id);
    } else {
      assignable.set(role.id, live.id);
    }
  }

  const live = new Map(members.map((member) => [member.user.id, member]));
  const perRole = new Map<string, { members: number; sample: string[] }>();
  /** Roles a member lacks and will not get back: each is listed once in `skipped`. */
  const missed = new Set<string>();
  for (const memberId of [...held.keys()].sort(compareIds)) {
    const member = live.get(memberId);
    if (member === undefined) {
      section.members_absent++;
      continue;
    }
    const has = new Set(member.roles);
    const add: string[] = [];
    for (const roleId of held.get(memberId)!) {
      const id = assignable.get(roleId);
      if (id !== undefined && has.has(id)) continue;
      if (refused.has(roleId)) {
        missed.add(roleId);
        continue;
      }
      if (id === undefined) continue;
      add.push(id);
      const entry = perRole.get(roleId) ?? { members: 0, sample: [] };
      entry.members++;
      if (entry.sample.length < MEMBER_SAMPLE_SIZE) entry.sample.push(displayName(member));
      perRole.set(roleId, entry);
    }
    if (add.length > 0) updates.push({ member_id: memberId, current: member.roles, add });
  }
  for (const role of input.target.roles) {
    if (missed.has(role.id)) {
      section.skipped.push({
        scope: 'member_roles',
        id: role.id,
        name: role.name,
        reason: refused.get(role.id)!,
      });
    }
  }
  section.members_to_update = updates.length;
  const roleOf = new Map(input.target.roles.map((role) => [role.id, role]));
  section.member_roles_to_restore = [...perRole]
    .map(([roleId, entry]): MemberRoleItem => ({
      role_id: roleId,
      role_name: roleOf.get(roleId)!.name,
      ...entry,
    }))
    .sort(
      (a, b) =>
        roleOf.get(b.role_id)!.position - roleOf.get(a.role_id)!.position || compareIds(a.role_id, b.role_id),
    );
  return { updates, section };
}

/**
 * The bans made since the snapshot (scope `bans`): each is lifted. A ban the snapshot has stays,
 * and nobody the snapshot does not show banned is banned.
 */
export function planBans(input: DiffInput): { bans_to_lift: BanItem[]; skipped: SkippedItem[] } {
  const kept = input.target.bans;
  const bans = input.bans;
  if (kept === undefined || !Array.isArray(bans)) {
    return {
      bans_to_lift: [],
      skipped: [wholeScope('bans', input, unavailable('bans', input.target, bans))],
    };
  }
  const inSnapshot = new Set(kept.map((ban) => ban.user_id));
  const bans_to_lift = bans
    .filter((ban) => !inSnapshot.has(ban.user.id))
    .map((ban) => ({ user_id: ban.user.id, name: userName(ban.user), reason: ban.reason }))
    .sort((a, b) => compareIds(a.user_id, b.user_id));
  return { bans_to_lift, skipped: [] };
}

/** Why a scope cannot be compared: the snapshot lacks the part (and why), or the live list is unreadable. */
function unavailable(
  part: 'member_roles' | 'bans',
  target: SnapshotPayload,
  live: readonly unknown[] | Unreadable | undefined,
): string {
  if (target[part] === undefined) {
    return target.omitted?.find((omitted) => omitted.part === part)?.reason ?? SKIP_REASON.notInSnapshot;
  }
  return live !== undefined && !Array.isArray(live) ? (live as Unreadable).unreadable : SKIP_REASON.notRead;
}

/** The whole scope passed over: the snapshot does not have it, or the bot cannot read the guild's. */
function wholeScope(scope: 'member_roles' | 'bans', input: DiffInput, reason: string): SkippedItem {
  return {
    scope,
    id: input.target.guild.id,
    name: scope === 'member_roles' ? 'Members’ roles' : 'Bans',
    reason,
  };
}

function displayName(member: PlatformMember): string {
  return member.nick ?? userName(member.user);
}

function userName(user: PlatformUser): string {
  return user.global_name ?? user.username;
}
