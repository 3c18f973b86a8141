import {
  computeChannelPermissions,
  PERMISSION,
  type PermissionOverride,
  type PlatformChannel,
  type PlatformRole,
} from '@lib/chat-platform';
import {
  type BotStanding,
  type DiffInput,
  type OverrideItem,
  type RestoreDiff,
  SKIP_REASON,
  type SkippedItem,
} from './diff-model';
import type { LiveLookup } from './live-lookup';
import { byOverrideOrder } from './ordering';
import { mayGrant } from './role-diff';

type OverrideSection = Pick<RestoreDiff, 'overrides_to_apply' | 'overrides_to_remove' | 'skipped'>;

/** Snapshot ids of the roles and channels this same diff creates. */
export interface PendingCreates {
  roles: ReadonlySet<string>;
  channels: ReadonlySet<string>;
}

export function emptyOverrideSection(): OverrideSection {
  return { overrides_to_apply: [], overrides_to_remove: [], skipped: [] };
}

const overrideKey = (channelId: string, type: string, targetId: string) => `${channelId} ${type} ${targetId}`;

export class OverridePlan {
  private readonly section = emptyOverrideSection();
  private readonly snapshotRoles: Map<string, PlatformRole>;
  private readonly snapshotChannels: Map<string, PlatformChannel>;
  private readonly liveOverrides: Map<string, PermissionOverride>;
  /** Live overrides the snapshot has a counterpart for; the others on its channels go. */
  private readonly kept = new Set<string>();

  /**
   * `onlyChannels`: plan just the overrides of these snapshot channels (those created with the
   * channel), and remove nothing.
   */
  constructor(
    private readonly input: DiffInput,
    private readonly lookup: LiveLookup,
    private readonly pending: PendingCreates,
    private readonly onlyChannels?: ReadonlySet<string>,
  ) {
    this.snapshotRoles = new Map(input.target.roles.map((role) => [role.id, role]));
    this.snapshotChannels = new Map(input.target.channels.map((channel) => [channel.id, channel]));
    this.liveOverrides = new Map(
      input.live.permission_overrides.map((o) => [overrideKey(o.channel_id, o.type, o.id), o]),
    );
  }

  result(): OverrideSection {
    const only = this.onlyChannels;
    for (const override of this.input.target.permission_overrides) {
      if (!only || only.has(override.channel_id)) this.plan(override);
    }
    this.section.overrides_to_apply.sort(byOverrideOrder);
    this.section.overrides_to_remove = only ? [] : this.removals().sort(byOverrideOrder);
    return this.section;
  }

  private plan(override: PermissionOverride): void {
    const channel = this.lookup.channel(override.channel_id);
    // Members are not restored, so a member override keeps its id.
    const targetId = override.type === 'role' ? this.lookup.role(override.id)?.id : override.id;
    const live =
      channel && targetId !== undefined ? overrideKey(channel.id, override.type, targetId) : undefined;
    if (live !== undefined) this.kept.add(live);
    const existing = live === undefined ? undefined : this.liveOverrides.get(live);
    if (existing && samePermissions(existing, override)) return;
    const item = this.snapshotItem(override);
    const refusal = this.refusal(override, channel, targetId);
    if (refusal) this.section.skipped.push(skippedOverride(item, refusal));
    else this.section.overrides_to_apply.push(item);
  }

  private refusal(
    override: PermissionOverride,
    channel: PlatformChannel | undefined,
    targetId: string | undefined,
  ): string | undefined {
    if (!channel && !this.pending.channels.has(override.channel_id)) return SKIP_REASON.channelNotRestored;
    if (targetId === undefined && !this.pending.roles.has(override.id)) return SKIP_REASON.roleNotRestored;
    const existing = channel ? this.channelOverrides(channel.id) : undefined;
    return overrideRefusal(this.input.bot, this.input.live.guild.id, existing, [override]);
  }

  private channelOverrides(liveChannelId: string): PermissionOverride[] {
    return this.input.live.permission_overrides.filter((o) => o.channel_id === liveChannelId);
  }

  /** Overrides on live channels the snapshot has; live-only channels are the channel scope's business. */
  private removals(): OverrideItem[] {
    const channels = new Map<string, PlatformChannel>();
    for (const snapshotChannel of this.input.target.channels) {
      const live = this.lookup.channel(snapshotChannel.id);
      if (live) channels.set(live.id, live);
    }
    const removals: OverrideItem[] = [];
    for (const o of this.input.live.permission_overrides) {
      if (!channels.has(o.channel_id) || this.kept.has(overrideKey(o.channel_id, o.type, o.id))) continue;
      const item = {
        ...overrideFields(o),
        channel_name: channels.get(o.channel_id)?.name ?? o.channel_id,
        target_name: o.type === 'role' ? (this.lookup.liveRole(o.id)?.name ?? null) : null,
      };
      // Removing an override changes its bits as setting it does: the same rule holds.
      const refusal = overrideRefusal(
        this.input.bot,
        this.input.live.guild.id,
        this.channelOverrides(o.channel_id),
        [o],
      );
      if (refusal) this.section.skipped.push(skippedOverride(item, refusal));
      else removals.push(item);
    }
    return removals;
  }

  private snapshotItem(override: PermissionOverride): OverrideItem {
    const role = override.type === 'role' ? this.snapshotRoles.get(override.id) : undefined;
    return {
      ...overrideFields(override),
      channel_name: this.snapshotChannels.get(override.channel_id)?.name ?? override.channel_id,
      target_name: override.type === 'role' ? (role?.name ?? null) : null,
    };
  }
}

/**
 * Why the platform would refuse the bot setting (or removing) these overrides in a channel whose
 * live overrides are `existing` (undefined: a channel the restore creates with them), or undefined
 * when it would not (resources/channel "Edit Channel Permissions"): the bot needs to see the
 * channel and hold Manage Permissions (MANAGE_ROLES) there, may allow or deny only bits it holds
 * there, and may put MANAGE_ROLES itself in an override only as an administrator or when an
 * override of that channel allows it MANAGE_ROLES. In a channel being created only guild-level
 * bits count, and MANAGE_ROLES needs ADMINISTRATOR (the platform's stricter reading).
 */
export function overrideRefusal(
  bot: BotStanding,
  everyoneId: string,
  existing: readonly PermissionOverride[] | undefined,
  overrides: readonly { allow: string; deny: string }[],
): string | undefined {
  if (bot.isOwner || mayGrant(bot, PERMISSION.ADMINISTRATOR)) return undefined;
  const held = existing
    ? computeChannelPermissions({
        guildPermissions: bot.permissions,
        everyoneId,
        userId: bot.userId,
        roleIds: bot.roleIds,
        overrides: existing,
      })
    : bot.permissions;
  if ((held & PERMISSION.VIEW_CHANNEL) === 0n) return SKIP_REASON.channelNotVisible;
  if ((held & PERMISSION.MANAGE_ROLES) === 0n) return SKIP_REASON.noManagePermissions;
  const applying = (existing ?? []).filter(
    (o) =>
      (o.type === 'role' && (o.id === everyoneId || bot.roleIds.includes(o.id))) ||
      (o.type === 'member' && o.id === bot.userId),
  );
  const manageRolesAllowed = applying.some((o) => (BigInt(o.allow) & PERMISSION.MANAGE_ROLES) !== 0n);
  for (const override of overrides) {
    const bits = BigInt(override.allow) | BigInt(override.deny);
    if ((bits & ~held) !== 0n) {
      return existing ? SKIP_REASON.permissionsNotHeldInChannel : SKIP_REASON.permissionsNotHeld;
    }
    if ((bits & PERMISSION.MANAGE_ROLES) !== 0n && !manageRolesAllowed)
      return SKIP_REASON.manageRolesInOverride;
  }
  return undefined;
}

function overrideFields(override: PermissionOverride): Omit<OverrideItem, 'channel_name' | 'target_name'> {
  const { channel_id, id, type, allow, deny } = override;
  return { channel_id, id, type, allow, deny };
}

function samePermissions(a: { allow: string; deny: string }, b: { allow: string; deny: string }): boolean {
  return BigInt(a.allow) === BigInt(b.allow) && BigInt(a.deny) === BigInt(b.deny);
}

/** An override has no id of its own: `channel/target` names it in `skipped`. */
function skippedOverride(item: OverrideItem, reason: string): SkippedItem {
  const target = item.target_name ?? `${item.type} ${item.id}`;
  return {
    scope: 'permission_overrides',
    id: `${item.channel_id}/${item.id}`,
    name: `${item.channel_name} / ${target}`,
    reason,
  };
}
