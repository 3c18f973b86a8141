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

/** The role fields a restore compares and puts back (besides position). */
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
    else if (role.id !== everyoneId) planRoleCreate(role, input.bot, section);
  }
  // @everyone sits at 0 below everything and cannot move.
  const moved = reordered(
    pairs.filter((pair) => pair.target.id !== everyoneId),
    byPosition,
  );
  for (const pair of pairs) planRoleUpdate(pair, moved.has(pair), input.bot, section);
  const matched = new Set(pairs.map((pair) => pair.live.id));
  for (const role of input.live.roles) {
    if (!matched.has(role.id)) planRoleDelete(role, input, section);
  }
  section.roles_to_delete.sort((a, b) => compareIds(a.id, b.id));
  return section;
}

function planRoleCreate(role: PlatformRole, bot: BotStanding, section: RoleSection): void {
  const refusal = roleCreateRefusal(role, bot);
  if (refusal) section.skipped.push(skippedRole(role, refusal));
  else section.roles_to_create.push(roleItem(role));
}

function roleCreateRefusal(role: PlatformRole, bot: BotStanding): string | undefined {
  if (role.managed) return SKIP_REASON.managedRole;
  return mayGrant(bot, BigInt(role.permissions)) ? undefined : SKIP_REASON.permissionsNotHeld;
}

function planRoleUpdate(
  pair: Pair<PlatformRole>,
  moved: boolean,
  bot: BotStanding,
  section: RoleSection,
): void {
  // An integration owns its role; the restore leaves it exactly as the integration keeps it.
  if (pair.target.managed || pair.live.managed) return;
  const changed = changedRoleFields(pair, moved);
  if (changed.length === 0) return;
  const refusal = roleUpdateRefusal(pair, bot);
  if (refusal) section.skipped.push(skippedRole(pair.target, refusal));
  else
    section.roles_to_update.push({
      current: roleItem(pair.live),
      target: roleItem(pair.target),
      changed_fields: changed,
    });
}

/** `icon` is left out: it is an image hash, and the image itself is not in the snapshot. */
function changedRoleFields(pair: Pair<PlatformRole>, moved: boolean): string[] {
  const target = roleItem(pair.target);
  const live = roleItem(pair.live);
  const changed: string[] = RESTORED_ROLE_FIELDS.filter((field) =>
    field === 'permissions'
      ? BigInt(target.permissions) !== BigInt(live.permissions)
      : target[field] !== live[field],
  );
  if (moved) changed.push('position');
  return changed;
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
