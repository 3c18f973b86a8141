import {
  CHANNEL_TYPE,
  type ChatPlatformClient,
  imageDataUri,
  type PlatformRole,
  type RoleInput,
} from '@lib/chat-platform';
import type { SnapshotPayload } from '../../snapshots/snapshot-payload';
import { RESTORED_ROLE_FIELDS, ROLE_ICON_FIELD } from '../restore-diff';
import { RESTORE_BATCH_SIZE, runConcurrently } from './concurrency';
import { waitedFor } from './platform-wait';
import { NOTHING, onlyMoved, reason, type StepContext, type StepHandler } from './step-context';

/**
 * CreateOrUpdateRoles: the missing roles made (those the channels to create need first) and the
 * changed ones set back, a batch of each per call; once none is left, the roles put in order. A
 * role's icon goes as its kept image; the platform names the upload with a new hash, recorded as
 * the snapshot's hash's replacement so a later comparison sees the icon as restored.
 */
export const createOrUpdateRoles: StepHandler = async (platform, context) => {
  const { diff, target } = context.comparison;
  const byId = new Map(target.roles.map((role) => [role.id, role]));
  // Roles the channels to create name come first, in the order those channels are made, so that
  // channel creation (beside this step) waits as little as it can.
  const creates = byChannelNeed(
    target,
    diff.roles_to_create.map((item) => byId.get(item.id)!),
  );
  const updates = diff.roles_to_update.filter((update) =>
    update.changed_fields.some((f) => f !== 'position'),
  );
  if (creates.length + updates.length > 0) {
    // Creates and updates use different rate-limit buckets, so they proceed side by side.
    const createBatch = creates.slice(0, RESTORE_BATCH_SIZE);
    const updateBatch = updates.slice(0, RESTORE_BATCH_SIZE);
    const icons = await iconImages(context, [
      ...createBatch,
      ...updateBatch
        .filter((update) => update.changed_fields.includes(ROLE_ICON_FIELD))
        .map((update) => byId.get(update.target.id)!),
    ]);
    const adopted = new Set<string>();
    let created = 0;
    let updated = 0;
    const pause = waitedFor(
      await Promise.allSettled([
        runConcurrently(createBatch, async (role) => {
          await createRole(platform, context, role, adopted, icons.get(role.id));
          created++;
        }),
        runConcurrently(updateBatch, async (update) => {
          const role = byId.get(update.target.id)!;
          const icon = update.changed_fields.includes(ROLE_ICON_FIELD)
            ? (icons.get(role.id) ?? null)
            : undefined;
          const now = await platform.updateRole(
            context.platformGuildId,
            update.current.id,
            roleInput(role, update.changed_fields, icon),
            reason(context),
          );
          await recordIcon(context, role, icon, now);
          updated++;
        }),
      ]),
    );
    const left = creates.length + updates.length - created - updated;
    // One more call at least: it re-reads the guild and puts the roles in order.
    return { ...NOTHING, created, updated, remaining: left + 1, ...(pause && { pause }) };
  }
  const positions = rolePositions(context);
  if (!diff.roles_to_update.some((u) => u.changed_fields.includes('position')) || positions.length === 0) {
    return NOTHING;
  }
  await platform.setRolePositions(context.platformGuildId, positions, reason(context));
  return { ...NOTHING, updated: onlyMoved(context.preview.roles_to_update) };
};

/**
 * A role left over by an earlier attempt of this step (created, then the worker died before
 * the new id was recorded) is taken over by name instead of created twice.
 */
async function createRole(
  platform: ChatPlatformClient,
  context: StepContext,
  role: PlatformRole,
  adopted: Set<string>,
  icon: string | undefined,
): Promise<void> {
  const orphan = context.comparison.diff.roles_to_delete.find(
    (candidate) => candidate.name === role.name && !adopted.has(candidate.id),
  );
  if (orphan) adopted.add(orphan.id);
  const input = roleInput(role, RESTORED_ROLE_FIELDS, icon);
  const created = orphan
    ? await platform.updateRole(context.platformGuildId, orphan.id, input, reason(context))
    : await platform.createRole(context.platformGuildId, input, reason(context));
  await recordIcon(context, role, icon, created);
  await context.recordReplacement('role', role.id, created.id);
}

/**
 * The icons of `roles` as the platform takes them (data URIs of the kept images), by the
 * snapshot's role id; a role whose icon's image the snapshot does not hold has none here (the
 * diff leaves such an icon as it is, and a role made anew goes without it).
 */
async function iconImages(context: StepContext, roles: PlatformRole[]): Promise<Map<string, string>> {
  const kept = context.comparison.target.role_icons ?? {};
  const withImage = roles.filter((role) => role.icon !== null && kept[role.id] !== undefined);
  if (withImage.length === 0) return new Map();
  const images = await context.readImages([...new Set(withImage.map((role) => kept[role.id]))]);
  return new Map(withImage.map((role) => [role.id, imageDataUri(images.get(kept[role.id])!)]));
}

/** An uploaded icon's new hash, as the replacement of the snapshot's. */
async function recordIcon(
  context: StepContext,
  role: PlatformRole,
  icon: string | null | undefined,
  written: PlatformRole,
): Promise<void> {
  if (typeof icon !== 'string' || role.icon === null || written.icon === null) return;
  if (written.icon !== role.icon) await context.recordReplacement('image', role.icon, written.icon);
}

/** Roles in the snapshot's order, those the bot may move (below its highest role). */
function rolePositions(context: StepContext): { id: string; position: number }[] {
  const { target, live, ids, bot } = context.comparison;
  const liveById = new Map(live.roles.map((role) => [role.id, role]));
  const positions: { id: string; position: number }[] = [];
  for (const role of target.roles) {
    if (role.id === target.guild.id || role.managed) continue;
    const liveRole = liveById.get(ids.resolve('role', role.id) ?? '');
    if (!liveRole) continue;
    const movable =
      bot.isOwner || (liveRole.position < bot.highestRolePosition && role.position < bot.highestRolePosition);
    if (movable) positions.push({ id: liveRole.id, position: role.position });
  }
  return positions;
}

/**
 * `roles` ordered by the first channel to create that names them in an overwrite (categories
 * first, as they are made first, then the snapshot's order); roles no such channel names last.
 */
export function byChannelNeed(target: SnapshotPayload, roles: PlatformRole[]): PlatformRole[] {
  const channelOrder = [
    ...target.channels.filter((channel) => channel.type === CHANNEL_TYPE.category),
    ...target.channels.filter((channel) => channel.type !== CHANNEL_TYPE.category),
  ].map((channel) => channel.id);
  const channelRank = new Map(channelOrder.map((id, index) => [id, index]));
  const need = new Map<string, number>();
  for (const override of target.permission_overrides) {
    if (override.type !== 'role') continue;
    const rank = channelRank.get(override.channel_id) ?? Number.POSITIVE_INFINITY;
    if (rank < (need.get(override.id) ?? Number.POSITIVE_INFINITY)) need.set(override.id, rank);
  }
  const rankOf = (role: PlatformRole) => need.get(role.id) ?? Number.POSITIVE_INFINITY;
  return [...roles].sort((a, b) => {
    const [x, y] = [rankOf(a), rankOf(b)];
    return x === y ? 0 : x < y ? -1 : 1;
  });
}

/** The diff's colour fields, which go to the platform together as `colors`. */
const COLOR_FIELDS: readonly string[] = ['color', 'secondary_color', 'tertiary_color'];

/**
 * The role's restored fields (all, or those named) as the platform takes them; `icon`, when
 * given, is the icon's image as a data URI, or null to remove it.
 */
export function roleInput(
  role: PlatformRole,
  fields: readonly string[] = RESTORED_ROLE_FIELDS,
  icon?: string | null,
): RoleInput {
  const input: RoleInput = {};
  for (const field of RESTORED_ROLE_FIELDS) {
    if (!fields.includes(field) || COLOR_FIELDS.includes(field)) continue;
    Object.assign(input, { [field]: role[field as keyof PlatformRole] });
  }
  // `color` is deprecated; `colors` sets all three at once, so a gradient is never half set.
  if (fields.some((field) => COLOR_FIELDS.includes(field))) input.colors = { ...role.colors };
  if (icon !== undefined) input.icon = icon;
  return input;
}
