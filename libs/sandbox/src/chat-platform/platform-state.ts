import {
  CHANNEL_TYPE,
  type GuildSettings,
  type PlatformChannel,
  type PlatformRole,
  type PlatformUser,
} from '@lib/chat-platform';

/**
 * The fake platform's in-memory state, in the platform's own field names. `guild(id)` hands out
 * deep copies of it and `mutate(id, fn)` the live object.
 * This fake is the platform, so it says "overwrite" where our code says permission override
 * (docs/decisions/permission-overrides.md).
 * Users, roles, channels and guild settings have the fields the service's client reads
 * (libs/chat-platform), which are the platform's own, and the fake keeps a few more.
 */

export type FakeUser = PlatformUser;

/** Positions: @everyone is 0; the others 1..n without gaps, higher is more powerful. */
export interface FakeRole extends PlatformRole {
  flags: number;
  /** Set on a bot's managed role. */
  tags?: { bot_id: string };
}

export interface FakeOverwrite {
  id: string;
  /** 0 role, 1 member. */
  type: 0 | 1;
  allow: string;
  deny: string;
}

/** A tag of a forum or media channel (resources/channel, "Forum Tag Object"). */
export interface FakeForumTag {
  id: string;
  name: string;
  moderated: boolean;
  /** At most one of the two is set: a custom emoji of the guild, or a unicode emoji. */
  emoji_id: string | null;
  emoji_name: string | null;
}

/** The emoji of a forum or media channel's add-reaction button ("Default Reaction Object"). */
export interface FakeDefaultReaction {
  emoji_id: string | null;
  emoji_name: string | null;
}

/**
 * The fields of forum (15) and media (16) channels; other types have none of them (the keys are
 * absent, not null). `default_forum_layout` is the forum's alone.
 */
export interface FakeForumFields {
  available_tags?: FakeForumTag[];
  default_reaction_emoji?: FakeDefaultReaction | null;
  /** 0 latest activity, 1 creation date; null: not set. */
  default_sort_order?: 0 | 1 | null;
  /** 0 not set, 1 list, 2 gallery. */
  default_forum_layout?: 0 | 1 | 2;
  default_thread_rate_limit_per_user?: number;
}

/** Fields a channel's type does not have are null (the forum fields: absent). */
export interface FakeChannel extends PlatformChannel, FakeForumFields {
  guild_id: string;
  permission_overwrites: FakeOverwrite[];
}

export interface FakeMember {
  user_id: string;
  /** Without @everyone, as on the wire. */
  roles: string[];
  nick: string | null;
  joined_at: string;
  /** Timed out until then (ISO 8601); absent or null when never timed out or the timeout was lifted. */
  communication_disabled_until?: string | null;
}

export type FakeGuildSettings = GuildSettings;

export interface FakeGuild extends FakeGuildSettings {
  /** Image hashes (reference, "Image Formatting"), null for none; the bytes are in the store's `images`. */
  banner: string | null;
  splash: string | null;
  discovery_splash: string | null;
  roles: FakeRole[];
  channels: FakeChannel[];
  members: FakeMember[];
  /** Invites and DMs paused by `PUT /guilds/{id}/incident-actions`; absent or null while never. */
  incidents_data?: FakeIncidentActions | null;
}

/** What the platform's incident actions pause, until when (ISO 8601), null for not paused. */
export interface FakeIncidentActions {
  invites_disabled_until: string | null;
  dms_disabled_until: string | null;
}

export interface DmRecord {
  recipientId: string;
  channelId: string;
  messageId: string;
  content: string;
  embeds: unknown[];
  /** As sent (the platform takes a string of up to 25 characters or an integer); absent when none was. */
  nonce?: string | number;
  sentAt: Date;
}

export interface RequestRecord {
  method: string;
  /**
   * After `/api/v10`, without the query; the OAuth2 consent page, outside the API, as
   * `/oauth2/authorize`; the CDN's images with their `/cdn` prefix.
   */
  path: string;
  /** The matched route template, e.g. `/guilds/:guild_id/roles`; null when none matched. */
  route: string | null;
  status: number;
  /** Epoch ms when the answer was sent. */
  at: number;
  /** The decoded `X-Audit-Log-Reason` header. */
  auditLogReason: string | null;
}

/**
 * The channel types the fake knows: the platform's guild channel types, media channels (16,
 * "GUILD_MEDIA", which the docs say is "still in active development"), and direct messages.
 */
export const CHANNEL_TYPES = { ...CHANNEL_TYPE, media: 16, dm: 1 } as const;

/** The guild channel types the fake serves. */
export const GUILD_CHANNEL_TYPES: readonly number[] = [...Object.values(CHANNEL_TYPE), CHANNEL_TYPES.media];

export const MAX_GUILD_ROLES = 250;
export const MAX_GUILD_CHANNELS = 500;
