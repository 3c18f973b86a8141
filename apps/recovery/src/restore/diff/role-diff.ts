import { PERMISSION, type PlatformRole } from '@lib/chat-platform';
import {
  type BotStanding,
  type DiffInput,
  type RestoreDiff,
  roleItem,
  SKIP_REASON,
  type SkippedItem,
} from './diff-model';
import { type LiveLookup, type Pair, reordered } from './live-lookup';
import { byPosition, compareIds } from './ordering';

type RoleSection = Pick<RestoreDiff, 'roles_to_create' | 'roles_to_update' | 'roles_to_delete' | 'skipped'>;

/**
 * The role fields a restore compares and puts back as the snapshot has them (besides position and
 * the icon, whose image comes from the snapshot's kept images).
 */
export const RESTORED_ROLE_FIELDS = [
  'name',
  'color',
  'secondary_color',
  'tertiary_color',
  'permissions',
  'hoist',
  'mentionable',
  'unicode_emoji',
] as const;

/** The changed field of a role whose icon a restore puts back (or removes). */
export const ROLE_ICON_FIELD = 'icon';

export function emptyRoleSection(): RoleSection {
  return { roles_to_create: [], roles_to_update: [], roles_to_delete: [], skipped: [] };
}

export function diffRoles(input: DiffInput, lookup: LiveLookup): RoleSection {
  const section = emptyRoleSection();
  const everyoneId = input.target.guild.id;
  const pairs: Pair<PlatformRole>[] = [];
  for (const role of [...input.target.roles].sort(byPosition)) {
    const live = lookup.role(role.id);
    if (live) pairs.push({ target: role, live });
    else if (role.id !== everyoneId) planRoleCreate(role, input, section);
  }
  // @everyone sits at 0 below everything and cannot move.
  const moved = reordered(
    pairs.filter((pair) => pair.target.id !== everyoneId),
    byPosition,
  );
  for (const pair of pairs) planRoleUpdate(pair, moved.has(pair), input, section);
  const matched = new Set(pairs.map((pair) => pair.live.id));
  for (const role of input.live.roles) {
    if (!matched.has(role.id)) planRoleDelete(role, input, section);
  }
  section.roles_to_delete.sort((a, b) => compareIds(a.id, b.id));
  return section;
}

function planRoleCreate(role: PlatformRole, input: DiffInput, section: RoleSection): void {
  const refusal = roleCreateRefusal(role, input.bot);
  if (refusal) section.skipped.push(skippedRole(role, refusal));
  else {
    section.roles_to_create.push(roleItem(role));
    if (role.icon !== null && iconNotKept(role, input)) {
      section.skipped.push(skippedRole(role, SKIP_REASON.roleIconNotKept));
    }
  }
}

function roleCreateRefusal(role: PlatformRole, bot: BotStanding): string | undefined {
  if (role.managed) return SKIP_REASON.managedRole;
  return mayGrant(bot, BigInt(role.permissions)) ? undefined : SKIP_REASON.permissionsNotHeld;
}

function planRoleUpdate(
  pair: Pair<PlatformRole>,
  moved: boolean,
  input: DiffInput,
  section: RoleSection,
): void {
  // An integration owns its role; the restore leaves it exactly as the integration keeps it.
  if (pair.target.managed || pair.live.managed) return;
  const icon = iconChange(pair, input);
  const changed = changedRoleFields(pair, moved, icon === 'changed');
  const noteIcon = () =>
    icon === 'not_kept' && section.skipped.push(skippedRole(pair.target, SKIP_REASON.roleIconNotKept));
  if (changed.length === 0) {
    noteIcon();
    return;
  }
  const refusal = roleUpdateRefusal(pair, input.bot);
  if (refusal) section.skipped.push(skippedRole(pair.target, refusal));
  else {
    section.roles_to_update.push({
      current: roleItem(pair.live),
      target: roleItem(pair.target),
      changed_fields: changed,
    });
    noteIcon();
  }
}

/** The fields of RESTORED_ROLE_FIELDS that differ, then `icon` and `position` when they change. */
function changedRoleFields(pair: Pair<PlatformRole>, moved: boolean, icon: boolean): string[] {
  const target = roleItem(pair.target);
  const live = roleItem(pair.live);
  const changed: string[] = RESTORED_ROLE_FIELDS.filter((field) =>
    field === 'permissions'
      ? BigInt(target.permissions) !== BigInt(live.permissions)
      : target[field] !== live[field],
  );
  if (icon) changed.push(ROLE_ICON_FIELD);
  if (moved) changed.push('position');
  return changed;
}

/**
 * A role's icon is an image the platform names by a hash: put back from the snapshot's kept image
 * (`role_icons`), or removed where the snapshot's role had none. The same hash live (or the one a
 * restore's upload of it got, recorded as its replacement) is the same icon. A snapshot from
 * before role icons were kept (no `role_icons`) has no icons to compare; one whose image was not
 * kept (the plan's quota, an unreadable CDN) leaves the live icon as it is, with a note.
 */
function iconChange({ target, live }: Pair<PlatformRole>, input: DiffInput): 'same' | 'changed' | 'not_kept' {
  if (input.target.role_icons === undefined) return 'same';
  const wanted = target.icon;
  if (wanted === live.icon || (wanted !== null && input.ids.resolve('image', wanted) === live.icon)) {
    return 'same';
  }
  return wanted !== null && iconNotKept(target, input) ? 'not_kept' : 'changed';
}

/** A role of a snapshot that keeps role icons whose icon's image it does not hold. */
function iconNotKept(role: PlatformRole, input: DiffInput): boolean {
  const icons = input.target.role_icons;
  return icons !== undefined && icons[role.id] === undefined;
}

function roleUpdateRefusal({ target, live }: Pair<PlatformRole>, bot: BotStanding): string | undefined {
  if (!mayManage(bot, live.position)) return SKIP_REASON.aboveBot;
  const added = BigInt(target.permissions) & ~BigInt(live.permissions);
  return mayGrant(bot, added) ? undefined : SKIP_REASON.permissionsNotHeld;
}

function planRoleDelete(role: PlatformRole, input: DiffInput, section: RoleSection): void {
  // @everyone cannot be deleted; an integration's role leaves with its integration.
  if (role.id === input.live.guild.id || role.managed) return;
  if (mayManage(input.bot, role.position)) section.roles_to_delete.push({ id: role.id, name: role.name });
  else section.skipped.push(skippedRole(role, SKIP_REASON.aboveBot));
}

function skippedRole(role: PlatformRole, reason: string): SkippedItem {
  return { scope: 'roles', id: role.id, name: role.name, reason };
}

/** The platform lets a bot act only strictly below its own highest role (the owner anywhere). */
function mayManage(bot: BotStanding, livePosition: number): boolean {
  return bot.isOwner || livePosition < bot.highestRolePosition;
}

/** A bot can grant only bits it holds; ADMINISTRATOR holds them all. */
export function mayGrant(bot: BotStanding, bits: bigint): boolean {
  const administrator = (bot.permissions & PERMISSION.ADMINISTRATOR) === PERMISSION.ADMINISTRATOR;
  return bot.isOwner || administrator || (bits & ~bot.permissions) === 0n;
}
