/**
 * A guild's state as the service keeps it: plain JSON in the platform's own snake_case, so a
 * snapshot payload is this object as read. Ids are the platform's snowflake strings.
 */

/** Guild-wide settings a restore can put back (`owner_id` is read-only and informative). */
export interface GuildSettings {
  id: string;
  name: string;
  description: string | null;
  /** Icon hash as the platform reports it. */
  icon: string | null;
  /**
   * The banner's, invite splash's and discovery splash's hashes (absent from snapshots taken before
   * they were kept). A write sets any of the four images with a data URI, or removes it with null.
   */
  banner?: string | null;
  splash?: string | null;
  discovery_splash?: string | null;
  owner_id: string;
  verification_level: number;
  default_message_notifications: number;
  explicit_content_filter: number;
  afk_channel_id: string | null;
  /** Seconds. */
  afk_timeout: number;
  system_channel_id: string | null;
  system_channel_flags: number;
  rules_channel_id: string | null;
  public_updates_channel_id: string | null;
  preferred_locale: string;
  /**
   * Server boost level, 0-3 (read-only, like `owner_id`): it sets some of the guild's limits, e.g.
   * the highest voice bitrate.
   */
  premium_tier: number;
  /** Guild features (read-only), e.g. `ENHANCED_ROLE_COLORS` for gradient and holographic roles. */
  features: string[];
}

/**
 * A role's colours (RGB integers). `primary_color` is always the role's `color`; a secondary colour
 * makes a gradient, a tertiary one a holographic role (the platform allows only one preset for it).
 */
export interface RoleColors {
  primary_color: number;
  secondary_color: number | null;
  tertiary_color: number | null;
}

/** The @everyone role has the guild's id and position 0. */
export interface PlatformRole {
  id: string;
  name: string;
  /** RGB as an integer, 0 for no colour; the platform keeps it equal to `colors.primary_color`. */
  color: number;
  colors: RoleColors;
  position: number;
  /** Permission bit set as a decimal string (it does not fit a JSON number). */
  permissions: string;
  hoist: boolean;
  mentionable: boolean;
  /** Owned by an integration (a bot's own role); it cannot be created, deleted or assigned. */
  managed: boolean;
  icon: string | null;
  unicode_emoji: string | null;
}

/** Platform channel type numbers (the platform may report others; they are kept as they come). */
export const CHANNEL_TYPE = {
  text: 0,
  voice: 2,
  category: 4,
  announcement: 5,
  stage: 13,
  forum: 15,
  media: 16,
} as const;

/**
 * A tag posts in a forum or media channel can carry. At most one emoji: a custom emoji of the guild
 * (`emoji_id`) or a unicode one (`emoji_name`); `moderated`: only members who may manage threads
 * apply it.
 */
export interface ForumTag {
  id: string;
  name: string;
  moderated: boolean;
  emoji_id: string | null;
  emoji_name: string | null;
}

/** The emoji of a forum or media channel's add-reaction button on its posts. */
export interface DefaultReaction {
  emoji_id: string | null;
  emoji_name: string | null;
}

/**
 * The fields of forum (15) and media (16) channels, present only on those (a media channel has no
 * layout) and absent from snapshots taken before they were kept.
 */
export interface ForumFields {
  available_tags?: ForumTag[];
  default_reaction_emoji?: DefaultReaction | null;
  /** 0 latest activity, 1 creation date; null: the member's choice. */
  default_sort_order?: 0 | 1 | null;
  /** 0 not set, 1 list, 2 gallery. */
  default_forum_layout?: 0 | 1 | 2;
  /** The slow mode a new post starts with, in seconds. */
  default_thread_rate_limit_per_user?: number;
}

/**
 * Fields of some channel types that are absent from snapshots taken before they were kept:
 * a voice or stage channel's region (null: automatic) and camera quality (1 auto, 2 720p), the
 * threads' auto-archive time (minutes) of text, announcement, forum and media channels, and a forum's
 * or media channel's flags (REQUIRE_TAG 1<<4; HIDE_MEDIA_DOWNLOAD_OPTIONS 1<<15, media only).
 */
export interface ChannelTypeFields {
  rtc_region?: string | null;
  video_quality_mode?: 1 | 2;
  default_auto_archive_duration?: 60 | 1440 | 4320 | 10080;
  flags?: number;
}

/** The type-dependent fields a restore compares and writes as they are. */
export const CHANNEL_TYPE_FIELDS = [
  'rtc_region',
  'video_quality_mode',
  'default_auto_archive_duration',
  'flags',
] as const satisfies readonly (keyof ChannelTypeFields)[];

/** The channel flags a bot may set (resources/channel, "Modify Channel": forum and media only). */
export const SETTABLE_CHANNEL_FLAGS = (1 << 4) | (1 << 15);

/** The forum fields, in the order a restore compares them. */
export const FORUM_FIELDS = [
  'available_tags',
  'default_reaction_emoji',
  'default_sort_order',
  'default_forum_layout',
  'default_thread_rate_limit_per_user',
] as const satisfies readonly (keyof ForumFields)[];

/**
 * A guild channel. Fields that do not apply to the channel's type are null (a category has no
 * topic, a text channel no bitrate); the forum fields are absent where they do not apply.
 */
export interface PlatformChannel extends ForumFields, ChannelTypeFields {
  id: string;
  type: number;
  name: string;
  position: number;
  parent_id: string | null;
  topic: string | null;
  nsfw: boolean;
  /** Slow mode in seconds. */
  rate_limit_per_user: number | null;
  bitrate: number | null;
  user_limit: number | null;
}

export type OverrideTarget = 'role' | 'member';

/** One channel's permission override for a role or a member, flattened out of its channel. */
export interface PermissionOverride {
  channel_id: string;
  /** The role's or member's id. */
  id: string;
  type: OverrideTarget;
  allow: string;
  deny: string;
}

/** Everything a snapshot holds and a restore puts back, sorted by position then id. */
export interface GuildState {
  guild: GuildSettings;
  roles: PlatformRole[];
  channels: PlatformChannel[];
  permission_overrides: PermissionOverride[];
}

export interface PlatformUser {
  id: string;
  username: string;
  global_name: string | null;
  bot: boolean;
}

export interface PlatformMember {
  user: PlatformUser;
  /** Role ids, without @everyone. */
  roles: string[];
  nick: string | null;
  /**
   * Until when the member is timed out (ISO 8601); present only while the platform reports one,
   * which may be in the past: the platform leaves an ended timeout's time in place.
   */
  communication_disabled_until?: string;
}

/**
 * One entry of a guild's audit log, the same from the REST read and from the gateway's
 * GUILD_AUDIT_LOG_ENTRY_CREATE.
 */
export interface AuditLogEntry {
  id: string;
  /** Who did it; null for the platform's own actions. */
  actorId: string | null;
  /** The platform's audit-log action type (`AuditLogEvent` of discord-api-types). */
  actionType: number;
  /** What it was done to: a channel, role or user id. */
  targetId: string | null;
  /** The `X-Audit-Log-Reason` the actor sent, if any: the actor's own text. */
  reason: string | null;
  /** What changed, as the platform lists it (`$remove` of MEMBER_ROLE_UPDATE: the roles taken). */
  changes: AuditLogChange[];
  /**
   * The entry's optional info, as the platform sends it (MEMBER_PRUNE: `members_removed` and
   * `delete_member_days`, decimal strings); absent when it has none.
   */
  options?: Record<string, unknown>;
}

/** One change of an audit-log entry; the values are the platform's, unchecked. */
export interface AuditLogChange {
  key: string;
  old_value?: unknown;
  new_value?: unknown;
}

/** A ban of the guild: who, and the reason given (the audit-log reason of the ban). */
export interface PlatformBan {
  user: PlatformUser;
  reason: string | null;
}

/** A channel as a write returns it: the channel and its overrides. */
export interface PlatformChannelWithOverrides extends PlatformChannel {
  permission_overrides: PermissionOverride[];
}

export interface DirectMessageEmbed {
  title?: string;
  description?: string;
  url?: string;
  color?: number;
  /** ISO 8601. */
  timestamp?: string;
  fields?: { name: string; value: string; inline?: boolean }[];
  footer?: { text: string };
}

export interface DirectMessage {
  content: string;
  embeds?: DirectMessageEmbed[];
  /**
   * Makes the send idempotent: the platform answers a second message with the same nonce in the
   * same channel, within a few minutes, with the first one instead of posting it again. At most
   * 25 characters; derive it from what the message is about, so a retry sends the same one.
   */
  nonce?: string;
}

export interface PlatformMessage {
  id: string;
  channel_id: string;
  content: string;
  embeds: DirectMessageEmbed[];
}
