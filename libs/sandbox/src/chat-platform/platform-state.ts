/**
 * The fake platform's in-memory state, in the platform's own field names. `guild(id)` hands out
 * deep copies of it and `mutate(id, fn)` the live object.
 * This fake is the platform, so it says "overwrite" where our code says permission override
 * (docs/architecture.md#one-word-for-permission-overrides).
 */

export interface FakeUser {
  id: string;
  username: string;
  global_name: string | null;
  bot: boolean;
}

export interface FakeRole {
  id: string;
  name: string;
  color: number;
  hoist: boolean;
  icon: string | null;
  unicode_emoji: string | null;
  /** @everyone is 0; the others 1..n without gaps, higher is more powerful. */
  position: number;
  permissions: string;
  managed: boolean;
  mentionable: boolean;
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

/** Fields a channel's type does not have are null. */
export interface FakeChannel {
  id: string;
  type: number;
  guild_id: string;
  name: string;
  position: number;
  parent_id: string | null;
  topic: string | null;
  nsfw: boolean;
  rate_limit_per_user: number | null;
  bitrate: number | null;
  user_limit: number | null;
  permission_overwrites: FakeOverwrite[];
}

export interface FakeMember {
  user_id: string;
  /** Without @everyone, as on the wire. */
  roles: string[];
  nick: string | null;
  joined_at: string;
}

export interface FakeGuildSettings {
  id: string;
  name: string;
  description: string | null;
  icon: string | null;
  owner_id: string;
  verification_level: number;
  default_message_notifications: number;
  explicit_content_filter: number;
  afk_channel_id: string | null;
  afk_timeout: number;
  system_channel_id: string | null;
  system_channel_flags: number;
  rules_channel_id: string | null;
  public_updates_channel_id: string | null;
  preferred_locale: string;
}

export interface FakeGuild extends FakeGuildSettings {
  roles: FakeRole[];
  channels: FakeChannel[];
  members: FakeMember[];
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
  /** After `/api/v10`, without the query; the OAuth2 consent page, outside the API, as `/oauth2/authorize`. */
  path: string;
  /** The matched route template, e.g. `/guilds/:guild_id/roles`; null when none matched. */
  route: string | null;
  status: number;
  /** Epoch ms when the answer was sent. */
  at: number;
  /** The decoded `X-Audit-Log-Reason` header. */
  auditLogReason: string | null;
}

export const CHANNEL_TYPES = {
  text: 0,
  dm: 1,
  voice: 2,
  category: 4,
  announcement: 5,
  stage: 13,
  forum: 15,
} as const;

/** The guild channel types the fake serves. */
export const GUILD_CHANNEL_TYPES: readonly number[] = [0, 2, 4, 5, 13, 15];

export const MAX_GUILD_ROLES = 250;
export const MAX_GUILD_CHANNELS = 500;
