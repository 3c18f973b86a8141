import { CHANNEL_TYPE, isChatPlatformError } from '@lib/chat-platform';
import type { StepOutcome } from '../workflows/restore-contract';
import { RESTORE_BATCH_SIZE, runConcurrently } from './concurrency';
import { NOTHING, reason, type StepHandler } from './step-context';

/** DeleteRemovedOverrides: the overwrites the snapshot does not have. */
export const deleteRemovedOverrides: StepHandler = (platform, context) =>
  deleteBatch(context.comparison.diff.overrides_to_remove, (o) =>
    platform.deletePermissionOverride(o.channel_id, o.id, reason(context)),
  );

/** DeleteRemovedChannels: channels before their categories, a category once nothing is in it. */
export const deleteRemovedChannels: StepHandler = (platform, context) => {
  const items = [...context.comparison.diff.channels_to_delete].sort(
    (a, b) => Number(a.type === CHANNEL_TYPE.category) - Number(b.type === CHANNEL_TYPE.category),
  );
  const children = items.filter((channel) => channel.type !== CHANNEL_TYPE.category);
  return deleteBatch(
    items,
    (channel) => platform.deleteChannel(channel.id, reason(context)),
    children.length > 0 ? children : items,
  );
};

/** DeleteRemovedRoles: the roles the snapshot does not have. */
export const deleteRemovedRoles: StepHandler = (platform, context) =>
  deleteBatch(context.comparison.diff.roles_to_delete, (role) =>
    platform.deleteRole(context.platformGuildId, role.id, reason(context)),
  );

/** LiftBans: the bans made since the snapshot; one lifted meanwhile counts as lifted. */
export const liftBans: StepHandler = (platform, context) =>
  deleteBatch(context.comparison.diff.bans_to_lift, (ban) =>
    platform.removeBan(context.platformGuildId, ban.user_id, reason(context)),
  );

/**
 * Deletes the first RESTORE_BATCH_SIZE of `deletable` (default: all `items`), a target already
 * gone counting as deleted; `remaining` is what is left of `items` after them.
 */
async function deleteBatch<T>(
  items: T[],
  remove: (item: T) => Promise<unknown>,
  deletable: T[] = items,
): Promise<StepOutcome> {
  const batch = deletable.slice(0, RESTORE_BATCH_SIZE);
  await runConcurrently(batch, (item) => goneIsDone(remove(item)));
  return { ...NOTHING, deleted: batch.length, remaining: items.length - batch.length };
}

/** Deleting what is already gone is done (a retry after the platform applied the first try). */
export async function goneIsDone(call: Promise<unknown>): Promise<void> {
  try {
    await call;
  } catch (error) {
    if (isChatPlatformError(error) && error.code === 'NotFound') return;
    throw error;
  }
}
