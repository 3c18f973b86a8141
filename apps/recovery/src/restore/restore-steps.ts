import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable } from '@nestjs/common';
import {
  ChatPlatformClient,
  type ChatPlatformError,
  type ChannelInput,
  type ChannelOverrideInput,
  type ChannelUpdate,
  CHANNEL_TYPE,
  isChatPlatformError,
  type PlatformChannel,
  type PlatformRole,
  type RoleInput,
} from '@lib/chat-platform';
import type { RestoreComparison } from './restore-comparisons';
import {
  type OverrideItem,
  overrideRefusal,
  type RestorableSetting,
  RESTORED_CHANNEL_FIELDS,
  RESTORED_ROLE_FIELDS,
  type RestoreDiff,
} from './restore-diff';
import type { SnapshotPayload } from '../snapshots/snapshot-payload';
import type { ChangeStep, PlatformWait, StepOutcome } from './workflows/restore-contract';

/** Changes one activity call makes before handing back, so progress moves and cancel is timely. */
export const RESTORE_BATCH_SIZE = 50;
/**
 * Members one call of the members' roles step updates. Each call re-reads the member list (a page
 * per 1,000 members), so the batch is larger than the others' to keep those reads a small share of
 * the calls; the member-update bucket lets about 10 a second through, so a call still hands back
 * within a minute or so, well inside the activity's time-out (and it heartbeats meanwhile).
 */
export const MEMBER_BATCH_SIZE = 500;
/**
 * Calls in flight at once. The platform client queues each rate-limit bucket and the global
 * limit itself; parallel calls only let different buckets (channels) proceed side by side.
 */
const CONCURRENCY = 10;

/** How long a call waits for a channel to become ready before handing back; how often it looks. */
const READY_WAIT_MS = 2_000;
const READY_POLL_MS = 100;

const CHANNEL_ID_SETTINGS: RestorableSetting[] = [
  'afk_channel_id',
  'system_channel_id',
  'rules_channel_id',
  'public_updates_channel_id',
];

export interface StepContext {
  jobId: string;
  guildId: string;
  platformGuildId: string;
  comparison: RestoreComparison;
  /** The approved preview: how many roles and channels only move (counted once, when moved). */
  preview: RestoreDiff;
  /**
   * Steps running beside this one whose work it needs (StepRef.awaiting): what would name a role
   * or channel they have not made yet waits for a later call instead of going without it.
   */
  awaiting: readonly ChangeStep[];
  recordReplacement(kind: 'role' | 'channel', originalId: string, replacementId: string): Promise<void>;
  /** Adds to `comparison.ids` the replacements recorded since it was read (by the steps beside). */
  learnRecordedIds(): Promise<void>;
}

const NOTHING: StepOutcome = { created: 0, updated: 0, deleted: 0, remaining: 0 };

/**
 * Steps 4-10 of the restore. Each call works from a fresh comparison of the snapshot with the
 * live guild, so running a step again (a retry, a new worker) does only what is still missing.
 */
@Injectable()
export class RestoreSteps {
  constructor(private readonly platform: ChatPlatformClient) {}

  /**
   * One call of the step. A long wait the platform asks for (a creation quota, a channel's
   * name/topic edits: the client fails those RateLimited rather than wait) ends the call with what
   * it did and the wait (StepOutcome.pause), for the workflow to wait out without an activity.
   */
  async run(step: ChangeStep, context: StepContext): Promise<StepOutcome> {
    try {
      return await this.runStep(step, context);
    } catch (error) {
      const pause = platformWaitOf(error);
      if (!pause) throw error;
      return { ...NOTHING, remaining: 1, pause };
    }
  }

  private runStep(step: ChangeStep, context: StepContext): Promise<StepOutcome> {
    switch (step) {
      case 'DeleteRemovedOverrides':
        return this.deleteOverrides(context);
      case 'DeleteRemovedChannels':
        return this.deleteChannels(context);
      case 'DeleteRemovedRoles':
        return this.deleteRoles(context);
      case 'CreateOrUpdateRoles':
        return this.createOrUpdateRoles(context);
      case 'CreateOrUpdateChannels':
        return this.createOrUpdateChannels(context);
      case 'ApplyPermissionOverrides':
        return this.applyOverrides(context);
      case 'UpdateGuildSettings':
        return this.updateSettings(context);
      case 'RestoreMemberRoles':
        return this.restoreMemberRoles(context);
      case 'LiftBans':
        return this.liftBans(context);
    }
  }

  private deleteOverrides(context: StepContext): Promise<StepOutcome> {
    return this.deleteBatch(context.comparison.diff.overrides_to_remove, (o) =>
      this.platform.deletePermissionOverride(o.channel_id, o.id, reason(context)),
    );
  }

  /** Channels before their categories: a category is removed once nothing depends on it. */
  private deleteChannels(context: StepContext): Promise<StepOutcome> {
    const items = [...context.comparison.diff.channels_to_delete].sort(
      (a, b) => Number(a.type === CHANNEL_TYPE.category) - Number(b.type === CHANNEL_TYPE.category),
    );
    const children = items.filter((channel) => channel.type !== CHANNEL_TYPE.category);
    return this.deleteBatch(
      items,
      (channel) => this.platform.deleteChannel(channel.id, reason(context)),
      children.length > 0 ? children : items,
    );
  }

  private deleteRoles(context: StepContext): Promise<StepOutcome> {
    return this.deleteBatch(context.comparison.diff.roles_to_delete, (role) =>
      this.platform.deleteRole(context.platformGuildId, role.id, reason(context)),
    );
  }

  /**
   * Deletes the first RESTORE_BATCH_SIZE of `deletable` (default: all `items`), a target already
   * gone counting as deleted; `remaining` is what is left of `items` after them.
   */
  private async deleteBatch<T>(
    items: T[],
    remove: (item: T) => Promise<unknown>,
    deletable: T[] = items,
  ): Promise<StepOutcome> {
    const batch = deletable.slice(0, RESTORE_BATCH_SIZE);
    await runConcurrently(batch, (item) => goneIsDone(remove(item)));
    return { ...NOTHING, deleted: batch.length, remaining: items.length - batch.length };
  }

  private async createOrUpdateRoles(context: StepContext): Promise<StepOutcome> {
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
      const adopted = new Set<string>();
      let created = 0;
      let updated = 0;
      const pause = waitedFor(
        await Promise.allSettled([
          runConcurrently(createBatch, async (role) => {
            await this.createRole(context, role, adopted);
            created++;
          }),
          runConcurrently(updateBatch, async (update) => {
            await this.platform.updateRole(
              context.platformGuildId,
              update.current.id,
              roleInput(byId.get(update.target.id)!, update.changed_fields),
              reason(context),
            );
            updated++;
          }),
        ]),
      );
      const left = creates.length + updates.length - created - updated;
      // One more call at least: it re-reads the guild and puts the roles in order.
      return { ...NOTHING, created, updated, remaining: left + 1, ...(pause && { pause }) };
    }
    const positions = this.rolePositions(context);
    if (!diff.roles_to_update.some((u) => u.changed_fields.includes('position')) || positions.length === 0) {
      return NOTHING;
    }
    await this.platform.setRolePositions(context.platformGuildId, positions, reason(context));
    return { ...NOTHING, updated: onlyMoved(context.preview.roles_to_update) };
  }

  /**
   * A role left over by an earlier attempt of this step (created, then the worker died before
   * the new id was recorded) is taken over by name instead of created twice.
   */
  private async createRole(context: StepContext, role: PlatformRole, adopted: Set<string>): Promise<void> {
    const orphan = context.comparison.diff.roles_to_delete.find(
      (candidate) => candidate.name === role.name && !adopted.has(candidate.id),
    );
    if (orphan) adopted.add(orphan.id);
    const created = orphan
      ? await this.platform.updateRole(context.platformGuildId, orphan.id, roleInput(role), reason(context))
      : await this.platform.createRole(context.platformGuildId, roleInput(role), reason(context));
    await context.recordReplacement('role', role.id, created.id);
  }

  /** Roles in the snapshot's order, those the bot may move (below its highest role). */
  private rolePositions(context: StepContext): { id: string; position: number }[] {
    const { target, live, ids, bot } = context.comparison;
    const liveById = new Map(live.roles.map((role) => [role.id, role]));
    const positions: { id: string; position: number }[] = [];
    for (const role of target.roles) {
      if (role.id === target.guild.id || role.managed) continue;
      const liveRole = liveById.get(ids.resolve('role', role.id) ?? '');
      if (!liveRole) continue;
      const movable =
        bot.isOwner ||
        (liveRole.position < bot.highestRolePosition && role.position < bot.highestRolePosition);
      if (movable) positions.push({ id: liveRole.id, position: role.position });
    }
    return positions;
  }

  private async createOrUpdateChannels(context: StepContext): Promise<StepOutcome> {
    const { diff, target } = context.comparison;
    const byId = new Map(target.channels.map((channel) => [channel.id, channel]));
    const creates = diff.channels_to_create.map((item) => byId.get(item.id)!);
    const updates = diff.channels_to_update.filter((u) => u.changed_fields.some((f) => f !== 'position'));
    if (creates.length + updates.length > 0) {
      const { ids } = context.comparison;
      const made = new Set<string>();
      // A child waits for its category while categories are still to be made (it needs the new id
      // as its parent); with the roles step still running beside this one, a channel whose
      // overwrites name a role not made yet waits too, so it is created with all of them.
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
      const adopted = new Set<string>();
      // Within the call a channel goes as soon as it is ready: a category made here readies its
      // children and the updates moving channels into it at once, and while the roles step runs
      // beside, the roles it has made since this call read the guild are learnt from the recorded
      // replacements (no platform call). The call hands back after a batch, when nothing is left,
      // or when nothing has become ready for READY_WAIT_MS.
      let lastProgress = Date.now();
      let creating = true;
      // Counted as each one succeeds: a pause the platform asks for keeps what was done.
      let createdCount = 0;
      let updatedCount = 0;
      let learning: Promise<void> | undefined;
      const created = asTheyBecomeReady<PlatformChannel>({
        next: (taken) => ready().find((channel) => !taken.has(channel)),
        work: async (channel) => {
          const id = await this.createChannel(context, channel, adopted);
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
      const updated = asTheyBecomeReady<(typeof updates)[number]>({
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
          await this.platform.updateChannel(
            update.current.id,
            this.channelFields(context, byId.get(update.target.id)!, update.changed_fields),
            reason(context),
          );
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
        remaining: left + 1,
        ...(pause && { pause }),
      };
    }
    if (!diff.channels_to_update.some((u) => u.changed_fields.includes('position'))) return NOTHING;
    await this.platform.setChannelPositions(
      context.platformGuildId,
      this.channelPositions(context),
      reason(context),
    );
    return { ...NOTHING, updated: onlyMoved(context.preview.channels_to_update) };
  }

  private async createChannel(
    context: StepContext,
    channel: PlatformChannel,
    adopted: Set<string>,
  ): Promise<string> {
    const orphan = context.comparison.diff.channels_to_delete.find(
      (candidate) =>
        candidate.name === channel.name && candidate.type === channel.type && !adopted.has(candidate.id),
    );
    if (orphan) adopted.add(orphan.id);
    const input: ChannelInput = {
      ...this.channelFields(context, channel, Object.keys(channel)),
      name: channel.name,
      type: channel.type,
      // Set at creation, so a private channel is never briefly open to everyone.
      permission_overrides: this.overridesOf(context, channel.id),
    };
    const created = orphan
      ? await this.platform.updateChannel(orphan.id, input, reason(context))
      : await this.platform.createChannel(context.platformGuildId, input, reason(context));
    await context.recordReplacement('channel', channel.id, created.id);
    return created.id;
  }

  private channelFields(context: StepContext, channel: PlatformChannel, fields: string[]): ChannelUpdate {
    const update: ChannelUpdate = {};
    const wanted = new Set(fields);
    for (const field of RESTORED_CHANNEL_FIELDS) {
      if (wanted.has(field)) Object.assign(update, { [field]: channel[field] });
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
  private overridesOf(context: StepContext, snapshotChannelId: string): ChannelOverrideInput[] {
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

  private channelPositions(
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

  private async applyOverrides(context: StepContext): Promise<StepOutcome> {
    const { diff, ids } = context.comparison;
    const items = diff.overrides_to_apply;
    // Beside the roles and channels steps, only the channels whose changes can all go now (their
    // roles exist) get them, in one call each; one still to be created gets its overwrites with
    // the channel, the others on a later call.
    const ready = context.awaiting.length === 0 ? items : this.channelsAllReady(context, items);
    const batch = ready.slice(0, RESTORE_BATCH_SIZE);
    const byChannel = new Map<string, OverrideItem[]>();
    for (const item of batch) {
      const channelId = ids.resolve('channel', item.channel_id);
      if (channelId !== undefined) byChannel.set(channelId, [...(byChannel.get(channelId) ?? []), item]);
    }
    let applied = 0;
    await runConcurrently([...byChannel], async ([channelId, changes]) => {
      const whole = this.wholeOverwriteList(context, channelId, changes);
      if (whole) {
        await this.setOverwriteList(context, channelId, whole);
        applied += changes.length;
        return;
      }
      for (const item of changes) {
        const targetId = item.type === 'role' ? ids.resolve('role', item.id) : item.id;
        if (targetId === undefined) continue;
        await this.platform.putPermissionOverride(
          { channel_id: channelId, id: targetId, type: item.type, allow: item.allow, deny: item.deny },
          reason(context),
        );
        applied++;
      }
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
  }

  /**
   * The items of the live channels none of whose snapshot overwrites waits for a role still to be
   * made. (A comparison of this step's scope alone does not list an overwrite whose role is
   * missing, so the snapshot says which channels would otherwise get a second call later.)
   */
  private channelsAllReady(context: StepContext, items: OverrideItem[]): OverrideItem[] {
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
   * Sets the channel's whole overwrite list in one call. A member's overwrite may name someone who
   * has left: the platform accepts it as any other.
   */
  private async setOverwriteList(
    context: StepContext,
    channelId: string,
    list: ChannelOverrideInput[],
  ): Promise<void> {
    await this.platform.updateChannel(channelId, { permission_overrides: list }, reason(context));
  }

  /**
   * The channel's whole overwrite list after `changes`, to set in one call: the live list, less
   * what the snapshot does not have (the overwrite deletes' work, so the two steps agree whichever
   * goes first), with the changes put in. Only when the bot may set every entry and remove every
   * one left out (the platform checks each); a single change goes alone, touching nothing else.
   */
  private wholeOverwriteList(
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

  private async updateSettings(context: StepContext): Promise<StepOutcome> {
    const { diff, ids } = context.comparison;
    const update: Record<string, unknown> = {};
    for (const [field, change] of Object.entries(diff.guild_settings_diff)) {
      if (!change) continue;
      if (CHANNEL_ID_SETTINGS.includes(field as RestorableSetting) && typeof change.target === 'string') {
        const channelId = ids.resolve('channel', change.target);
        if (channelId !== undefined) update[field] = channelId;
      } else {
        update[field] = change.target;
      }
    }
    const fields = Object.keys(update).length;
    if (fields === 0) return NOTHING;
    await this.platform.updateGuildSettings(context.platformGuildId, update, reason(context));
    return { ...NOTHING, updated: fields };
  }

  /**
   * One update per member, setting the roles they have now plus all those they get back. Setting
   * the whole list (rather than a call per role) is what keeps the calls at one per member; the list
   * was read in this same call, so a role given meanwhile is the only thing it could undo. A member
   * who left since the read is passed over: the platform does not let the bot add them back.
   */
  private async restoreMemberRoles(context: StepContext): Promise<StepOutcome> {
    const updates = context.comparison.memberUpdates;
    const batch = updates.slice(0, MEMBER_BATCH_SIZE);
    let updated = 0;
    let assigned = 0;
    await runConcurrently(batch, async (update) => {
      try {
        await this.platform.setMemberRoles(
          context.platformGuildId,
          update.member_id,
          [...update.current, ...update.add],
          reason(context),
        );
        updated++;
        assigned += update.add.length;
      } catch (error) {
        if (!(isChatPlatformError(error) && error.code === 'NotFound')) throw error;
      }
    });
    return { ...NOTHING, updated, assigned, remaining: updates.length - batch.length };
  }

  /** Lifts the bans made since the snapshot; one lifted meanwhile counts as lifted. */
  private liftBans(context: StepContext): Promise<StepOutcome> {
    return this.deleteBatch(context.comparison.diff.bans_to_lift, (ban) =>
      this.platform.removeBan(context.platformGuildId, ban.user_id, reason(context)),
    );
  }
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

function reason(context: StepContext): { reason: string } {
  return { reason: `Restore ${context.jobId}` };
}

/** The diff's colour fields, which go to the platform together as `colors`. */
const COLOR_FIELDS: readonly string[] = ['color', 'secondary_color', 'tertiary_color'];

/** The role's restored fields (all, or those named) as the platform takes them. */
function roleInput(role: PlatformRole, fields: readonly string[] = RESTORED_ROLE_FIELDS): RoleInput {
  const input: RoleInput = {};
  for (const field of RESTORED_ROLE_FIELDS) {
    if (!fields.includes(field) || COLOR_FIELDS.includes(field)) continue;
    Object.assign(input, { [field]: role[field as keyof PlatformRole] });
  }
  // `color` is deprecated; `colors` sets all three at once, so a gradient is never half set.
  if (fields.some((field) => COLOR_FIELDS.includes(field))) input.colors = { ...role.colors };
  return input;
}

/** Entries of the approved preview whose only change is their place in the order. */
function onlyMoved(updates: { changed_fields: string[] }[]): number {
  return updates.filter(
    (update) => update.changed_fields.length === 1 && update.changed_fields[0] === 'position',
  ).length;
}

/** Deleting what is already gone is done (a retry after the platform applied the first try). */
async function goneIsDone(call: Promise<unknown>): Promise<void> {
  try {
    await call;
  } catch (error) {
    if (isChatPlatformError(error) && error.code === 'NotFound') return;
    throw error;
  }
}

interface ReadyWork<T> {
  /** The next item that can go now, of those not taken yet. */
  next(taken: ReadonlySet<T>): T | undefined;
  work(item: T): Promise<unknown>;
  /** Waiting could ready more (a step beside, or other work of the call, is making what it needs). */
  mayReady(): boolean;
  /** A moment's wait, learning what has changed meanwhile. */
  wait(): Promise<unknown>;
  /** Items at most; default RESTORE_BATCH_SIZE. */
  limit?: number;
}

/**
 * Does up to `limit` items as they become ready, CONCURRENCY at a time; returns how many were done
 * once the limit is reached, or nothing is ready, in flight, or to wait for. After a failure no
 * new item starts, and the first failure is thrown.
 */
async function asTheyBecomeReady<T>(work: ReadyWork<T>): Promise<number> {
  const limit = work.limit ?? RESTORE_BATCH_SIZE;
  const taken = new Set<T>();
  let started = 0;
  let done = 0;
  let failed = false;
  const lane = async () => {
    while (started < limit && !failed) {
      const item = work.next(taken);
      if (item !== undefined) {
        taken.add(item);
        started++;
        try {
          await work.work(item);
        } catch (error) {
          failed = true;
          throw error;
        }
        done++;
        continue;
      }
      // An item in flight here (a category) can ready others, as can what is being waited for.
      if (started === done && !work.mayReady()) return;
      await work.wait();
    }
  };
  const settled = await Promise.allSettled(Array.from({ length: CONCURRENCY }, lane));
  const failure = settled.find((result) => result.status === 'rejected');
  if (failure) throw failure.reason;
  return done;
}

/** Runs `work` over the items, CONCURRENCY at a time; after a failure no new item starts. */
async function runConcurrently<T>(items: T[], work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await asTheyBecomeReady({
    next: () => items[next++],
    work,
    mayReady: () => false,
    wait: () => Promise.resolve(),
    limit: items.length,
  });
}

/** A platform call that failed RateLimited: which limit, from the route it was refused on. */
function platformWaitOf(error: unknown): PlatformWait | undefined {
  if (!isChatPlatformError(error) || error.code !== 'RateLimited') return undefined;
  const { method, path, retry_after_ms: retryAfterMs } = (error as ChatPlatformError).details;
  const route = `${method} ${(path ?? '').replace(/^.*\/v\d+/, '')}`;
  let reason: PlatformWait['reason'] = 'rate_limit';
  if (/^POST \/guilds\/\d+\/roles$/.test(route)) reason = 'role_creation_quota';
  else if (/^POST \/guilds\/\d+\/channels$/.test(route)) reason = 'channel_creation_quota';
  else if (/^PATCH \/channels\/\d+$/.test(route)) reason = 'channel_edit_limit';
  return { reason, until: new Date(Date.now() + (retryAfterMs ?? 0)).toISOString() };
}

/**
 * The wait the platform asked for, if work side by side ended on one (the longest, if several);
 * any other failure is thrown.
 */
function waitedFor(settled: PromiseSettledResult<unknown>[]): PlatformWait | undefined {
  let wait: PlatformWait | undefined;
  for (const result of settled) {
    if (result.status === 'fulfilled') continue;
    const pause = platformWaitOf(result.reason);
    if (!pause) throw result.reason;
    if (!wait || pause.until > wait.until) wait = pause;
  }
  return wait;
}
