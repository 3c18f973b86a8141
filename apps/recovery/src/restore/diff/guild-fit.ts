import {
  allowsEnhancedRoleColors,
  ENHANCED_ROLE_COLORS,
  type GuildSettings,
  maxBitrate,
  maxTopicLength,
  type PlatformChannel,
  type PlatformRole,
} from '@lib/chat-platform';
import type { SnapshotPayload } from '../../snapshots/snapshot-payload';
import { type ClampedItem, roleItem } from './diff-model';
import { compareIds } from './ordering';

/**
 * A snapshot as the live guild can take it back. A snapshot taken at a higher boost level (or with
 * a feature the guild has lost) holds values the platform now refuses with 400 50035: a voice
 * bitrate above the live cap, gradient role colours. Each is brought to the nearest value the
 * guild takes, and said so (`clamped`), so the restore completes instead of failing on it. The
 * diff is computed from the fitted snapshot, so what is hashed and approved is what is sent.
 */
export function fitToLiveGuild(
  target: SnapshotPayload,
  live: Pick<GuildSettings, 'premium_tier' | 'features'>,
): { target: SnapshotPayload; clamped: ClampedItem[] } {
  const clamped: ClampedItem[] = [];
  const keepsIcons = target.role_icons !== undefined;
  const roles = target.roles.map((role) => fitRole(role, live, keepsIcons, clamped));
  const channels = target.channels.map((channel) => fitChannel(channel, live, clamped));
  return { target: { ...target, roles, channels }, clamped };
}

/**
 * A role's icon, an emoji (`unicode_emoji`) or an image (`icon`), needs the ROLE_ICONS feature
 * (resources/guild, "Guild Features"; the platform refuses one without it): a guild that lost its
 * boosts keeps the role without its icon. The image counts only where the snapshot keeps role
 * icons' images (`keepsIcons`); before, a restore never compared nor set it.
 */
export const ROLE_ICONS = 'ROLE_ICONS';

function fitRole(
  role: PlatformRole,
  live: Pick<GuildSettings, 'features'>,
  keepsIcons: boolean,
  clamped: ClampedItem[],
): PlatformRole {
  return fitRoleColors(fitRoleIcon(role, live, keepsIcons, clamped), live, clamped);
}

function fitRoleIcon(
  role: PlatformRole,
  live: Pick<GuildSettings, 'features'>,
  keepsIcons: boolean,
  clamped: ClampedItem[],
): PlatformRole {
  if (live.features.includes(ROLE_ICONS)) return role;
  const fitted = { ...role };
  for (const field of ['unicode_emoji', 'icon'] as const) {
    if (role[field] === null || (field === 'icon' && !keepsIcons)) continue;
    clamped.push({
      scope: 'roles',
      id: role.id,
      name: role.name,
      field,
      snapshot_value: role[field],
      restored_value: null,
      reason: `the guild lacks the ${ROLE_ICONS} feature: the role goes without its icon`,
    });
    fitted[field] = null;
  }
  return fitted;
}

function fitRoleColors(
  role: PlatformRole,
  live: Pick<GuildSettings, 'features'>,
  clamped: ClampedItem[],
): PlatformRole {
  const { secondary_color, tertiary_color } = role.colors;
  if ((secondary_color === null && tertiary_color === null) || allowsEnhancedRoleColors(live)) return role;
  const shown = roleItem(role);
  const reason = `the guild lacks the ${ENHANCED_ROLE_COLORS} feature: the role keeps its primary colour only`;
  for (const field of ['secondary_color', 'tertiary_color'] as const) {
    if (shown[field] === null) continue;
    clamped.push({
      scope: 'roles',
      id: role.id,
      name: role.name,
      field,
      snapshot_value: shown[field],
      restored_value: null,
      reason,
    });
  }
  return { ...role, colors: { ...role.colors, secondary_color: null, tertiary_color: null } };
}

function fitChannel(
  channel: PlatformChannel,
  live: Pick<GuildSettings, 'premium_tier' | 'features'>,
  clamped: ClampedItem[],
): PlatformChannel {
  const fitted = { ...channel };
  const note = (field: 'bitrate' | 'topic', restored: string | number, reason: string) =>
    clamped.push({
      scope: 'channels',
      id: channel.id,
      name: channel.name,
      field,
      snapshot_value: channel[field],
      restored_value: restored,
      reason,
    });
  const cap = maxBitrate(channel.type, live);
  if (channel.bitrate !== null && channel.bitrate > cap) {
    fitted.bitrate = cap;
    note('bitrate', cap, `the guild’s boost level (${live.premium_tier}) allows at most ${cap / 1000} kbps`);
  }
  // Only a snapshot of another channel type can hold a longer topic than this type takes.
  const longest = maxTopicLength(channel.type);
  if (channel.topic !== null && channel.topic.length > longest) {
    fitted.topic = channel.topic.slice(0, longest);
    note('topic', fitted.topic, `a channel of this type takes a topic of at most ${longest} characters`);
  }
  return fitted;
}

/**
 * The notes for what the diff does: a role or channel it creates, or one whose clamped field it
 * changes. A value the live item already has needs no restore, and so no note.
 */
export function clampedInDiff(
  clamped: readonly ClampedItem[],
  changes: {
    created: { scope: ClampedItem['scope']; id: string }[];
    updated: { scope: ClampedItem['scope']; id: string; changed_fields: string[] }[];
  },
): ClampedItem[] {
  const key = (scope: string, id: string) => `${scope} ${id}`;
  const created = new Set(changes.created.map((item) => key(item.scope, item.id)));
  const updated = new Map(changes.updated.map((item) => [key(item.scope, item.id), item.changed_fields]));
  return clamped
    .filter(
      (item) =>
        created.has(key(item.scope, item.id)) ||
        (updated.get(key(item.scope, item.id)) ?? []).includes(item.field),
    )
    .sort((a, b) => byText(a.scope, b.scope) || compareIds(a.id, b.id) || byText(a.field, b.field));
}

/** Code-unit order: no locale, so equal diffs stay byte-equal everywhere. */
function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
