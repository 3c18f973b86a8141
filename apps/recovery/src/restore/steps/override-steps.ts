import type { ChannelOverrideInput, ChatPlatformClient } from '@lib/chat-platform';
import { type OverrideItem, overrideRefusal } from '../restore-diff';
import { RESTORE_BATCH_SIZE, runConcurrently } from './concurrency';
import { NOTHING, reason, type StepContext, type StepHandler } from './step-context';

/**
 * ApplyPermissionOverrides: the snapshot's overwrites a channel lacks or has changed, each channel's
 * in one call where the bot may set its whole list.
 */
export const applyPermissionOverrides: StepHandler = async (platform, context) => {
  const { diff, ids } = context.comparison;
  const items = diff.overrides_to_apply;
  // Beside the roles and channels steps, only the channels whose changes can all go now (their
  // roles exist) get them, in one call each; one still to be created gets its overwrites with
  // the channel, the others on a later call.
  const ready = context.awaiting.length === 0 ? items : channelsAllReady(context, items);
  const batch = ready.slice(0, RESTORE_BATCH_SIZE);
  const byChannel = new Map<string, OverrideItem[]>();
  for (const item of batch) {
    const channelId = ids.resolve('channel', item.channel_id);
    if (channelId !== undefined) byChannel.set(channelId, [...(byChannel.get(channelId) ?? []), item]);
  }
  let applied = 0;
  await runConcurrently([...byChannel], async ([channelId, changes]) => {
    applied += await applyToChannel(platform, context, channelId, changes);
  });
  if (context.awaiting.length === 0) {
    return { ...NOTHING, created: applied, remaining: items.length - batch.length };
  }
  // A comparison made with this step's scope alone passes over (as `skipped`) an overwrite whose
  // role the roles step has yet to make: so while the steps beside it run, this one is never done.
  // Once all that was ready is applied, the rest waits for a step beside it to end.
  return {
    ...NOTHING,
    created: applied,
    remaining: Math.max(1, items.length - applied),
    waiting: ready.length === batch.length,
  };
};

/** The channel's changes: its whole list in one call when it may be, else one call each. */
async function applyToChannel(
  platform: ChatPlatformClient,
  context: StepContext,
  channelId: string,
  changes: OverrideItem[],
): Promise<number> {
  const { ids } = context.comparison;
  const whole = wholeOverwriteList(context, channelId, changes);
  if (whole) {
    // A member's overwrite may name someone who has left: the platform accepts it as any other.
    await platform.updateChannel(channelId, { permission_overrides: whole }, reason(context));
    return changes.length;
  }
  let applied = 0;
  for (const item of changes) {
    const targetId = item.type === 'role' ? ids.resolve('role', item.id) : item.id;
    if (targetId === undefined) continue;
    await platform.putPermissionOverride(
      { channel_id: channelId, id: targetId, type: item.type, allow: item.allow, deny: item.deny },
      reason(context),
    );
    applied++;
  }
  return applied;
}

/**
 * The items of the live channels none of whose snapshot overwrites waits for a role still to be
 * made. (A comparison of this step's scope alone does not list an overwrite whose role is
 * missing, so the snapshot says which channels would otherwise get a second call later.)
 */
function channelsAllReady(context: StepContext, items: OverrideItem[]): OverrideItem[] {
  const { target, ids } = context.comparison;
  const rolesPending = context.awaiting.includes('CreateOrUpdateRoles');
  const waiting = new Set(
    target.permission_overrides
      .filter((o) => rolesPending && o.type === 'role' && ids.resolve('role', o.id) === undefined)
      .map((o) => o.channel_id),
  );
  return items.filter(
    (item) =>
      !waiting.has(item.channel_id) &&
      ids.resolve('channel', item.channel_id) !== undefined &&
      (item.type !== 'role' || ids.resolve('role', item.id) !== undefined),
  );
}

/**
 * The channel's whole overwrite list after `changes`, to set in one call: the live list, less
 * what the snapshot does not have (the overwrite deletes' work, so the two steps agree whichever
 * goes first), with the changes put in. Only when the bot may set every entry and remove every
 * one left out (the platform checks each); a single change goes alone, touching nothing else.
 */
function wholeOverwriteList(
  context: StepContext,
  channelId: string,
  changes: OverrideItem[],
): ChannelOverrideInput[] | undefined {
  if (changes.length < 2) return undefined;
  const { live, diff, ids, bot } = context.comparison;
  const key = (o: { type: string; id: string }) => `${o.type} ${o.id}`;
  const removed = new Set(diff.overrides_to_remove.filter((o) => o.channel_id === channelId).map(key));
  const list = new Map<string, ChannelOverrideInput>();
  for (const { channel_id, ...overwrite } of live.permission_overrides) {
    if (channel_id === channelId && !removed.has(key(overwrite))) list.set(key(overwrite), overwrite);
  }
  for (const { type, id, allow, deny } of changes) {
    const targetId = type === 'role' ? ids.resolve('role', id) : id;
    if (targetId === undefined) return undefined;
    list.set(key({ type, id: targetId }), { id: targetId, type, allow, deny });
  }
  const entries = [...list.values()];
  const existing = live.permission_overrides.filter((o) => o.channel_id === channelId);
  const left = existing.filter((o) => !list.has(key(o)));
  const refusal = overrideRefusal(bot, live.guild.id, existing, [...entries, ...left]);
  return refusal === undefined ? entries : undefined;
}
