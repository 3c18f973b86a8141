import {
  type APIAuditLogEntry,
  type APIBan,
  type APIGuild,
  type APIGuildMember,
  type APIMessage,
  type APIOverwrite,
  type APIRole,
  type APIUser,
  OverwriteType,
} from 'discord-api-types/v10';
import { CHANNEL_TYPE, SETTABLE_CHANNEL_FLAGS } from './guild-state';
import type {
  AuditLogEntry,
  ChannelTypeFields,
  GuildSettings,
  GuildState,
  PermissionOverride,
  PlatformBan,
  DefaultReaction,
  ForumFields,
  ForumTag,
  PlatformChannel,
  PlatformChannelWithOverrides,
  PlatformMember,
  PlatformMessage,
  PlatformRole,
  PlatformUser,
} from './guild-state';
import type { ChannelInput, ChannelOverrideInput, ChannelUpdate } from './write-inputs';

/**
 * A guild channel as read from the wire. Which fields are present depends on the channel's type,
 * so this is looser than the library's per-type union.
 */
export interface WireGuildChannel {
  id: string;
  type: number;
  name?: string | null;
  position?: number;
  parent_id?: string | null;
  topic?: string | null;
  nsfw?: boolean;
  rate_limit_per_user?: number;
  bitrate?: number;
  user_limit?: number;
  available_tags?: ForumTag[];
  default_reaction_emoji?: DefaultReaction | null;
  default_sort_order?: 0 | 1 | null;
  default_forum_layout?: 0 | 1 | 2;
  default_thread_rate_limit_per_user?: number;
  rtc_region?: string | null;
  video_quality_mode?: 1 | 2;
  default_auto_archive_duration?: 60 | 1440 | 4320 | 10080;
  flags?: number;
  /** The wire's name for our permission overrides (docs/decisions/permission-overrides.md). */
  permission_overwrites?: APIOverwrite[];
}

/** Numeric order of snowflakes without BigInt: a longer id is a later one. */
export function compareSnowflakes(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

export function sortByPosition<T extends { position: number; id: string }>(items: T[]): T[] {
  return [...items].sort((a, b) => a.position - b.position || compareSnowflakes(a.id, b.id));
}

export function toGuildSettings(guild: APIGuild): GuildSettings {
  return {
    id: guild.id,
    name: guild.name,
    description: guild.description ?? null,
    icon: guild.icon ?? null,
    banner: guild.banner ?? null,
    splash: guild.splash ?? null,
    discovery_splash: guild.discovery_splash ?? null,
    owner_id: guild.owner_id,
    verification_level: guild.verification_level,
    default_message_notifications: guild.default_message_notifications,
    explicit_content_filter: guild.explicit_content_filter,
    afk_channel_id: guild.afk_channel_id ?? null,
    afk_timeout: guild.afk_timeout,
    system_channel_id: guild.system_channel_id ?? null,
    system_channel_flags: guild.system_channel_flags,
    rules_channel_id: guild.rules_channel_id ?? null,
    public_updates_channel_id: guild.public_updates_channel_id ?? null,
    preferred_locale: guild.preferred_locale,
    premium_tier: guild.premium_tier ?? 0,
    features: [...(guild.features ?? [])].sort(),
  };
}

/**
 * The guild's state from its guild object (settings and roles) and its channels, as a REST read
 * and the gateway's GUILD_CREATE both deliver them; overrides follow their channel's order.
 */
export function toGuildState(guild: APIGuild, channels: WireGuildChannel[]): GuildState {
  const sortedChannels = sortByPosition(channels.map(toPlatformChannel));
  const wireById = new Map(channels.map((channel) => [channel.id, channel]));
  return {
    guild: toGuildSettings(guild),
    roles: sortByPosition(guild.roles.map(toPlatformRole)),
    channels: sortedChannels,
    permission_overrides: sortedChannels.flatMap((channel) =>
      toPermissionOverrides(wireById.get(channel.id)!),
    ),
  };
}

export function toPlatformRole(role: APIRole): PlatformRole {
  return {
    id: role.id,
    name: role.name,
    color: role.color,
    // Roles of a platform version before gradients carry `color` only.
    colors: {
      primary_color: role.colors?.primary_color ?? role.color,
      secondary_color: role.colors?.secondary_color ?? null,
      tertiary_color: role.colors?.tertiary_color ?? null,
    },
    position: role.position,
    permissions: role.permissions,
    hoist: role.hoist,
    mentionable: role.mentionable,
    managed: role.managed,
    icon: role.icon ?? null,
    unicode_emoji: role.unicode_emoji ?? null,
  };
}

export function toPlatformChannel(channel: WireGuildChannel): PlatformChannel {
  const forum: ForumFields = {};
  // Present on forum and media channels only; each copied field by field, so nothing the
  // platform adds to a tag later slips into a snapshot unversioned.
  if (channel.available_tags !== undefined) forum.available_tags = channel.available_tags.map(toForumTag);
  if (channel.default_reaction_emoji !== undefined)
    forum.default_reaction_emoji = channel.default_reaction_emoji && {
      emoji_id: channel.default_reaction_emoji.emoji_id ?? null,
      emoji_name: channel.default_reaction_emoji.emoji_name ?? null,
    };
  if (channel.default_sort_order !== undefined) forum.default_sort_order = channel.default_sort_order;
  if (channel.default_forum_layout !== undefined) forum.default_forum_layout = channel.default_forum_layout;
  if (channel.default_thread_rate_limit_per_user !== undefined)
    forum.default_thread_rate_limit_per_user = channel.default_thread_rate_limit_per_user;
  const typed: ChannelTypeFields = {};
  const voice = channel.type === CHANNEL_TYPE.voice || channel.type === CHANNEL_TYPE.stage;
  if (voice) {
    typed.rtc_region = channel.rtc_region ?? null;
    // The platform leaves the mode out while it is automatic (resources/channel).
    typed.video_quality_mode = channel.video_quality_mode ?? 1;
  }
  if (channel.default_auto_archive_duration !== undefined)
    typed.default_auto_archive_duration = channel.default_auto_archive_duration;
  // Every channel carries flags; a bot sets them on forum and media channels only.
  if (channel.type === CHANNEL_TYPE.forum || channel.type === CHANNEL_TYPE.media)
    typed.flags = (channel.flags ?? 0) & SETTABLE_CHANNEL_FLAGS;
  return {
    id: channel.id,
    type: channel.type,
    name: channel.name ?? '',
    position: channel.position ?? 0,
    parent_id: channel.parent_id ?? null,
    topic: channel.topic ?? null,
    nsfw: channel.nsfw ?? false,
    rate_limit_per_user: channel.rate_limit_per_user ?? null,
    bitrate: channel.bitrate ?? null,
    user_limit: channel.user_limit ?? null,
    ...typed,
    ...forum,
  };
}

function toForumTag(tag: ForumTag): ForumTag {
  return {
    id: tag.id,
    name: tag.name,
    moderated: tag.moderated,
    emoji_id: tag.emoji_id ?? null,
    emoji_name: tag.emoji_name ?? null,
  };
}

/** Reads the wire's `permission_overwrites` as our overrides, flattened out of their channel. */
export function toPermissionOverrides(channel: WireGuildChannel): PermissionOverride[] {
  return (channel.permission_overwrites ?? [])
    .map((override): PermissionOverride => ({
      channel_id: channel.id,
      id: override.id,
      type: override.type === OverwriteType.Member ? 'member' : 'role',
      allow: override.allow,
      deny: override.deny,
    }))
    .sort((a, b) => compareSnowflakes(a.id, b.id));
}

export function toChannelWithOverrides(channel: WireGuildChannel): PlatformChannelWithOverrides {
  return { ...toPlatformChannel(channel), permission_overrides: toPermissionOverrides(channel) };
}

/** Writes an override as the wire's overwrite object. */
export function toWireOverwrite(override: ChannelOverrideInput): APIOverwrite {
  return {
    id: override.id,
    type: override.type === 'member' ? OverwriteType.Member : OverwriteType.Role,
    allow: override.allow,
    deny: override.deny,
  };
}

/**
 * The body of a channel create or edit; absent fields stay absent so the platform keeps them. Our
 * `permission_overrides` go out as the wire's `permission_overwrites`.
 */
export function toChannelBody(input: ChannelInput | ChannelUpdate): Record<string, unknown> {
  const { permission_overrides, ...fields } = input;
  return permission_overrides === undefined
    ? fields
    : { ...fields, permission_overwrites: permission_overrides.map(toWireOverwrite) };
}

export function toPlatformUser(user: APIUser): PlatformUser {
  return {
    id: user.id,
    username: user.username,
    global_name: user.global_name ?? null,
    bot: user.bot ?? false,
  };
}

export function toPlatformMember(member: APIGuildMember): PlatformMember {
  const until = member.communication_disabled_until;
  return {
    user: toPlatformUser(member.user),
    roles: member.roles,
    nick: member.nick ?? null,
    ...(until ? { communication_disabled_until: until } : {}),
  };
}

/** An audit-log entry as the REST read and the gateway's GUILD_AUDIT_LOG_ENTRY_CREATE carry it. */
export function toAuditLogEntry(entry: APIAuditLogEntry): AuditLogEntry {
  return {
    id: entry.id,
    actorId: entry.user_id ?? null,
    actionType: entry.action_type,
    targetId: entry.target_id ?? null,
    reason: entry.reason ?? null,
    changes: (entry.changes ?? []).map((change) => ({ ...change })),
    ...(entry.options ? { options: { ...entry.options } } : {}),
  };
}

export function toPlatformBan(ban: APIBan): PlatformBan {
  return { user: toPlatformUser(ban.user), reason: ban.reason ?? null };
}

export function toPlatformMessage(message: APIMessage): PlatformMessage {
  return {
    id: message.id,
    channel_id: message.channel_id,
    content: message.content,
    embeds: message.embeds,
  };
}
