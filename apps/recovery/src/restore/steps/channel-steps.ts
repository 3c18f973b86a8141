import { setTimeout as sleep } from 'node:timers/promises';
import {
  CHANNEL_TYPE,
  CHANNEL_TYPE_FIELDS,
  type ChannelInput,
  type ChannelOverrideInput,
  type ChannelUpdate,
  type ChatPlatformClient,
  type PlatformChannel,
} from '@lib/chat-platform';
import {
  forumFieldsToWrite,
  overrideRefusal,
  RESTORED_CHANNEL_FIELDS,
  type RestoreDiff,
  tagReplacements,
} from '../restore-diff';
import type { StepOutcome } from '../workflows/restore-contract';
import { asTheyBecomeReady } from './concurrency';
import { waitedFor } from './platform-wait';
import { NOTHING, onlyMoved, reason, type StepContext, type StepHandler } from './step-context';

/** How long a call waits for a channel to become ready before handing back; how often it looks. */
const READY_WAIT_MS = 2_000;
const READY_POLL_MS = 100;

type ChannelChange = RestoreDiff['channels_to_update'][number];

/**
 * CreateOrUpdateChannels: the missing channels made (each with its overwrites) and the changed ones
 * set back, as each becomes ready; once none is left, the channels put in order.
 */
export const createOrUpdateChannels: StepHandler = async (platform, context) => {
  const { diff, target } = context.comparison;
  const byId = new Map(target.channels.map((channel) => [channel.id, channel]));
  const creates = diff.channels_to_create.map((item) => byId.get(item.id)!);
  const updates = diff.channels_to_update.filter((u) => u.changed_fields.some((f) => f !== 'position'));
  if (creates.length + updates.length > 0) {
    return createAndUpdate(platform, context, creates, updates, byId);
  }
  if (!diff.channels_to_update.some((u) => u.changed_fields.includes('position'))) return NOTHING;
  await platform.setChannelPositions(context.platformGuildId, channelPositions(context), reason(context));
  return { ...NOTHING, updated: onlyMoved(context.preview.channels_to_update) };
};

/**
 * Which of the channels to create may go now. A child waits for its category while categories are
 * still to be made (it needs the new id as its parent); with the roles step still running beside
 * this one, a channel whose overwrites name a role not made yet waits too, so it is created with
 * all of them.
 */
function channelReadiness(context: StepContext, creates: PlatformChannel[]) {
  const { ids, target } = context.comparison;
  /** Snapshot ids of the channels made in this call. */
  const made = new Set<string>();
  const categoriesLeft = () =>
    creates.some((channel) => channel.type === CHANNEL_TYPE.category && !made.has(channel.id));
  const parentReady = (parentId: string | null) =>
    parentId === null || !categoriesLeft() || ids.resolve('channel', parentId) !== undefined;
  const rolesPending = context.awaiting.includes('CreateOrUpdateRoles');
  const rolesNamed = new Map<string, string[]>();
  for (const o of target.permission_overrides) {
    if (o.type === 'role') rolesNamed.set(o.channel_id, [...(rolesNamed.get(o.channel_id) ?? []), o.id]);
  }
  const rolesReady = (channelId: string) =>
    !rolesPending ||
    (rolesNamed.get(channelId) ?? []).every((roleId) => ids.resolve('role', roleId) !== undefined);
  const ready = () =>
    creates.filter(
      (channel) =>
        !made.has(channel.id) &&
        (channel.type === CHANNEL_TYPE.category || parentReady(channel.parent_id)) &&
        rolesReady(channel.id),
    );
  return { made, parentReady, rolesPending, ready };
}

/**
 * Within the call a channel goes as soon as it is ready: a category made here readies its children
 * and the updates moving channels into it at once, and while the roles step runs beside, the roles
 * it has made since this call read the guild are learnt from the recorded replacements (no
 * platform call). The call hands back after a batch, when nothing is left, or when nothing has
 * become ready for READY_WAIT_MS.
 */
async function createAndUpdate(
  platform: ChatPlatformClient,
  context: StepContext,
  creates: PlatformChannel[],
  updates: ChannelChange[],
  byId: Map<string, PlatformChannel>,
): Promise<StepOutcome> {
  const { ids } = context.comparison;
  const { made, parentReady, rolesPending, ready } = channelReadiness(context, creates);
  const adopted = new Set<string>();
  let lastProgress = Date.now();
  let creating = true;
  // Counted as each one succeeds: a pause the platform asks for keeps what was done.
  let createdCount = 0;
  let updatedCount = 0;
  let learning: Promise<void> | undefined;
  const created = asTheyBecomeReady<PlatformChannel>({
    next: (taken) => ready().find((channel) => !taken.has(channel)),
    work: async (channel) => {
      const id = await createChannel(platform, context, channel, adopted);
      createdCount++;
      made.add(channel.id);
      ids.learn('channel', channel.id, id);
      lastProgress = Date.now();
    },
    mayReady: () => rolesPending && Date.now() - lastProgress < READY_WAIT_MS,
    wait: () =>
      (learning ??= sleep(READY_POLL_MS)
        .then(() => context.learnRecordedIds())
        .finally(() => (learning = undefined))),
  }).finally(() => (creating = false));
  // Each channel is its own rate-limit bucket: updates go alongside the creates.
  const updated = asTheyBecomeReady<ChannelChange>({
    next: (taken) =>
      updates.find(
        (update) =>
          !taken.has(update) &&
          (!update.changed_fields.includes('parent_id') ||
            parentReady(byId.get(update.target.id)!.parent_id)),
      ),
    // Every changed field of a channel in one edit: the platform allows 2 edits of a channel's
    // name or topic per 10 minutes, so a restore never edits one channel's name or topic twice.
    work: async (update) => {
      const target = byId.get(update.target.id)!;
      const written = await platform.updateChannel(
        update.current.id,
        channelFields(context, target, update.changed_fields, update.current.id),
        reason(context),
      );
      if (update.changed_fields.includes('available_tags')) await recordTags(context, target, written);
      updatedCount++;
    },
    mayReady: () => creating,
    wait: () => sleep(READY_POLL_MS),
  });
  const pause = waitedFor(await Promise.allSettled([created, updated]));
  const left = creates.length + updates.length - createdCount - updatedCount;
  return {
    ...NOTHING,
    created: createdCount,
    updated: updatedCount,
    // One more call at least: it re-reads the guild and puts the channels in order.
    remaining: left + 1,
    ...(pause && { pause }),
  };
}

/**
 * A channel left over by an earlier attempt (created, then the worker died before the new id was
 * recorded) is taken over by name and type instead of created twice.
 */
async function createChannel(
  platform: ChatPlatformClient,
  context: StepContext,
  channel: PlatformChannel,
  adopted: Set<string>,
): Promise<string> {
  const orphan = context.comparison.diff.channels_to_delete.find(
    (candidate) =>
      candidate.name === channel.name && candidate.type === channel.type && !adopted.has(candidate.id),
  );
  if (orphan) adopted.add(orphan.id);
  // A new channel cannot be created with its flags: they are set by an edit once it exists.
  const fields = Object.keys(channel).filter((field) => orphan || field !== 'flags');
  const input: ChannelInput = {
    ...channelFields(context, channel, fields, orphan?.id),
    name: channel.name,
    type: channel.type,
    // Set at creation, so a private channel is never briefly open to everyone.
    permission_overrides: overridesOf(context, channel.id),
  };
  const created = orphan
    ? await platform.updateChannel(orphan.id, input, reason(context))
    : await platform.createChannel(context.platformGuildId, input, reason(context));
  await context.recordReplacement('channel', channel.id, created.id);
  await recordTags(context, channel, created);
  return created.id;
}

/** A forum's tags that the write gave new ids, for the id map. */
async function recordTags(context: StepContext, target: PlatformChannel, written: PlatformChannel) {
  for (const { original, replacement } of tagReplacements(target, written)) {
    await context.recordReplacement('forum_tag', original, replacement);
  }
}

/** `liveId`: the live channel the write goes to, whose forum tags keep their ids. */
function channelFields(
  context: StepContext,
  channel: PlatformChannel,
  fields: string[],
  liveId?: string,
): ChannelUpdate {
  const wanted = new Set(fields);
  const live = context.comparison.live.channels.find((candidate) => candidate.id === liveId);
  const update: ChannelUpdate = forumFieldsToWrite(channel, live, wanted);
  for (const field of RESTORED_CHANNEL_FIELDS) {
    if (wanted.has(field)) Object.assign(update, { [field]: channel[field] });
  }
  for (const field of CHANNEL_TYPE_FIELDS) {
    if (wanted.has(field) && channel[field] !== undefined) Object.assign(update, { [field]: channel[field] });
  }
  if (wanted.has('position')) update.position = channel.position;
  if (wanted.has('parent_id')) {
    const parent =
      channel.parent_id === null ? null : context.comparison.ids.resolve('channel', channel.parent_id);
    if (parent !== undefined) update.parent_id = parent;
  }
  return update;
}

/**
 * The overwrites a new channel is created with: the snapshot's, less those the plan skips as the
 * platform would refuse them (one refused entry refuses the whole channel).
 */
function overridesOf(context: StepContext, snapshotChannelId: string): ChannelOverrideInput[] {
  const { target, ids, bot, live } = context.comparison;
  const overrides: ChannelOverrideInput[] = [];
  for (const override of target.permission_overrides) {
    if (override.channel_id !== snapshotChannelId) continue;
    if (overrideRefusal(bot, live.guild.id, undefined, [override]) !== undefined) continue;
    const id = override.type === 'role' ? ids.resolve('role', override.id) : override.id;
    if (id !== undefined)
      overrides.push({ id, type: override.type, allow: override.allow, deny: override.deny });
  }
  return overrides;
}

function channelPositions(
  context: StepContext,
): { id: string; position: number; parent_id?: string | null }[] {
  const { target, ids } = context.comparison;
  const positions: { id: string; position: number; parent_id?: string | null }[] = [];
  for (const channel of target.channels) {
    const id = ids.resolve('channel', channel.id);
    if (id === undefined) continue;
    const parent = channel.parent_id === null ? null : ids.resolve('channel', channel.parent_id);
    positions.push(
      parent === undefined
        ? { id, position: channel.position }
        : { id, position: channel.position, parent_id: parent },
    );
  }
  return positions;
}
