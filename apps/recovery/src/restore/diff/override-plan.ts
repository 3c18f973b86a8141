import type { PermissionOverwrite, PlatformChannel, PlatformRole } from '@lib/chat-platform';
import {
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

const overwriteKey = (channelId: string, type: string, targetId: string) =>
  `${channelId} ${type} ${targetId}`;

export class OverridePlan {
  private readonly section = emptyOverrideSection();
  private readonly snapshotRoles: Map<string, PlatformRole>;
  private readonly snapshotChannels: Map<string, PlatformChannel>;
  private readonly liveOverwrites: Map<string, PermissionOverwrite>;
  /** Live overwrites the snapshot has a counterpart for; the others on its channels go. */
  private readonly kept = new Set<string>();

  /**
   * `onlyChannels`: plan just the overwrites of these snapshot channels (those created with the
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
    this.liveOverwrites = new Map(
      input.live.permission_overrides.map((o) => [overwriteKey(o.channel_id, o.type, o.id), o]),
    );
  }

  result(): OverrideSection {
    const only = this.onlyChannels;
    for (const overwrite of this.input.target.permission_overrides) {
      if (!only || only.has(overwrite.channel_id)) this.plan(overwrite);
    }
    this.section.overrides_to_apply.sort(byOverrideOrder);
    this.section.overrides_to_remove = only ? [] : this.removals().sort(byOverrideOrder);
    return this.section;
  }

  private plan(overwrite: PermissionOverwrite): void {
    const channel = this.lookup.channel(overwrite.channel_id);
    // Members are not restored, so a member overwrite keeps its id.
    const targetId = overwrite.type === 'role' ? this.lookup.role(overwrite.id)?.id : overwrite.id;
    const live =
      channel && targetId !== undefined ? overwriteKey(channel.id, overwrite.type, targetId) : undefined;
    if (live !== undefined) this.kept.add(live);
    const existing = live === undefined ? undefined : this.liveOverwrites.get(live);
    if (existing && samePermissions(existing, overwrite)) return;
    const item = this.snapshotItem(overwrite);
    const refusal = this.refusal(overwrite, channel, targetId);
    if (refusal) this.section.skipped.push(skippedOverride(item, refusal));
    else this.section.overrides_to_apply.push(item);
  }

  private refusal(
    overwrite: PermissionOverwrite,
    channel: PlatformChannel | undefined,
    targetId: string | undefined,
  ): string | undefined {
    if (!channel && !this.pending.channels.has(overwrite.channel_id)) return SKIP_REASON.channelNotRestored;
    if (targetId === undefined && !this.pending.roles.has(overwrite.id)) return SKIP_REASON.roleNotRestored;
    // The platform lets a bot allow or deny in an overwrite only bits it holds itself.
    const bits = BigInt(overwrite.allow) | BigInt(overwrite.deny);
    return mayGrant(this.input.bot, bits) ? undefined : SKIP_REASON.permissionsNotHeld;
  }

  /** Overwrites on live channels the snapshot has; live-only channels are the channel scope's business. */
  private removals(): OverrideItem[] {
    const channels = new Map<string, PlatformChannel>();
    for (const snapshotChannel of this.input.target.channels) {
      const live = this.lookup.channel(snapshotChannel.id);
      if (live) channels.set(live.id, live);
    }
    return this.input.live.permission_overrides
      .filter((o) => channels.has(o.channel_id) && !this.kept.has(overwriteKey(o.channel_id, o.type, o.id)))
      .map((o) => ({
        ...overrideFields(o),
        channel_name: channels.get(o.channel_id)?.name ?? o.channel_id,
        target_name: o.type === 'role' ? (this.lookup.liveRole(o.id)?.name ?? null) : null,
      }));
  }

  private snapshotItem(overwrite: PermissionOverwrite): OverrideItem {
    const role = overwrite.type === 'role' ? this.snapshotRoles.get(overwrite.id) : undefined;
    return {
      ...overrideFields(overwrite),
      channel_name: this.snapshotChannels.get(overwrite.channel_id)?.name ?? overwrite.channel_id,
      target_name: overwrite.type === 'role' ? (role?.name ?? null) : null,
    };
  }
}

function overrideFields(overwrite: PermissionOverwrite): Omit<OverrideItem, 'channel_name' | 'target_name'> {
  const { channel_id, id, type, allow, deny } = overwrite;
  return { channel_id, id, type, allow, deny };
}

function samePermissions(a: { allow: string; deny: string }, b: { allow: string; deny: string }): boolean {
  return BigInt(a.allow) === BigInt(b.allow) && BigInt(a.deny) === BigInt(b.deny);
}

/** An overwrite has no id of its own: `channel/target` names it in `skipped`. */
function skippedOverride(item: OverrideItem, reason: string): SkippedItem {
  const target = item.target_name ?? `${item.type} ${item.id}`;
  return {
    scope: 'permission_overrides',
    id: `${item.channel_id}/${item.id}`,
    name: `${item.channel_name} / ${target}`,
    reason,
  };
}
