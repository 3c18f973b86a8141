import { typeSpecificFields } from './channel-fields';
import type { FakeEmoji, FakeSticker } from './guild-expressions';
import type { IssuedTokens } from './oauth-store';
import {
  CHANNEL_TYPES,
  type DmRecord,
  type FakeChannel,
  type FakeGuild,
  type FakeIncidentActions,
  type FakeMember,
  type FakeRole,
  type FakeUser,
} from './platform-state';

/**
 * The JSON objects the platform answers with, built from the fake's state. Each holds exactly the
 * fields of its schema in Discord's OpenAPI document (the contract suite, test/contract, checks
 * every route's answer against it, and fails on a field Discord does not send).
 */

/** A user as other objects embed it (a member's, a ban's, a message's author): `UserResponse`. */
export function userWire(user: FakeUser) {
  return {
    id: user.id,
    username: user.username,
    global_name: user.global_name,
    discriminator: '0',
    avatar: null,
    ...(user.bot ? { bot: true } : {}),
    public_flags: 0,
    flags: 0,
    // The server tag a user chose to show; the fake's users show none.
    primary_guild: null,
  };
}

/**
 * The account behind the token, as `GET /users/@me` answers (`UserPIIResponse`): with the
 * `identify` scope, also whether it has two-factor authentication on and its chosen language.
 * `email` and `verified` need the `email` scope, which nothing asks of the fake.
 */
export function currentUserWire(user: FakeUser) {
  return { ...userWire(user), mfa_enabled: false, locale: 'en-US' };
}

/**
 * A guild's custom emoji (`EmojiResponse`); `user`, its uploader, only when given: the platform
 * shows it to those holding CREATE_GUILD_EXPRESSIONS or MANAGE_GUILD_EXPRESSIONS
 * (resources/emoji, "List Guild Emojis").
 */
export function emojiWire(emoji: FakeEmoji, uploader?: FakeUser) {
  return {
    id: emoji.id,
    name: emoji.name,
    roles: [...emoji.roles],
    require_colons: emoji.require_colons,
    managed: emoji.managed,
    animated: emoji.animated,
    available: emoji.available,
    ...(uploader ? { user: userWire(uploader) } : {}),
  };
}

/** A guild's sticker (`GuildStickerResponse`); `user` as for an emoji (resources/sticker). */
export function stickerWire(sticker: FakeSticker, uploader?: FakeUser) {
  return {
    id: sticker.id,
    name: sticker.name,
    tags: sticker.tags,
    type: sticker.type,
    format_type: sticker.format_type,
    description: sticker.description,
    available: sticker.available,
    guild_id: sticker.guild_id,
    ...(uploader ? { user: userWire(uploader) } : {}),
  };
}

export function roleWire(role: FakeRole) {
  return {
    id: role.id,
    name: role.name,
    color: role.color,
    colors: { ...role.colors },
    hoist: role.hoist,
    icon: role.icon,
    unicode_emoji: role.unicode_emoji,
    position: role.position,
    permissions: role.permissions,
    managed: role.managed,
    mentionable: role.mentionable,
    flags: role.flags,
    ...(role.tags ? { tags: { ...role.tags } } : {}),
  };
}

/** Only the fields the channel's type has, as the platform sends them. */
export function channelWire(channel: FakeChannel) {
  const wire: Record<string, unknown> = {
    id: channel.id,
    type: channel.type,
    guild_id: channel.guild_id,
    name: channel.name,
    position: channel.position,
    flags: 0,
    parent_id: channel.parent_id,
    permission_overwrites: channel.permission_overwrites.map((overwrite) => ({ ...overwrite })),
    nsfw: channel.nsfw,
  };
  for (const field of typeSpecificFields(channel.type)) wire[field] = channel[field];
  return wire;
}

/**
 * The guild object. `expressions`, the guild's custom emojis and stickers (kept apart from the guild
 * by the fake), fill its `emojis` and `stickers`; without them the lists are empty.
 */
export function guildWire(guild: FakeGuild, expressions?: { emojis: FakeEmoji[]; stickers: FakeSticker[] }) {
  return {
    id: guild.id,
    name: guild.name,
    icon: guild.icon,
    description: guild.description,
    splash: guild.splash ?? null,
    discovery_splash: guild.discovery_splash ?? null,
    banner: guild.banner ?? null,
    owner_id: guild.owner_id,
    afk_channel_id: guild.afk_channel_id,
    afk_timeout: guild.afk_timeout,
    widget_enabled: false,
    widget_channel_id: null,
    verification_level: guild.verification_level,
    default_message_notifications: guild.default_message_notifications,
    explicit_content_filter: guild.explicit_content_filter,
    roles: guild.roles.map(roleWire),
    emojis: expressions?.emojis.map((emoji) => emojiWire(emoji)) ?? [],
    stickers: expressions?.stickers.map((sticker) => stickerWire(sticker)) ?? [],
    features: [...guild.features],
    mfa_level: 0,
    application_id: null,
    system_channel_id: guild.system_channel_id,
    system_channel_flags: guild.system_channel_flags,
    rules_channel_id: guild.rules_channel_id,
    public_updates_channel_id: guild.public_updates_channel_id,
    safety_alerts_channel_id: null,
    vanity_url_code: null,
    premium_tier: guild.premium_tier,
    premium_subscription_count: 0,
    preferred_locale: guild.preferred_locale,
    max_video_channel_users: 25,
    max_stage_video_channel_users: 50,
    // Null except for the very largest guilds.
    max_presences: null,
    max_members: 500_000,
    // Voice regions are per channel now; the guild's field stays, with this value. Its value is
    // undocumented (the schema says only "a string"): this is what Discord sends.
    region: 'deprecated',
    home_header: null,
    nsfw: false,
    nsfw_level: 0,
    premium_progress_bar_enabled: false,
    // The guild's raid and DM spam measures; null while none is in force.
    incidents_data: incidentsDataWire(guild),
  };
}

/**
 * A guild as `GET /users/@me/guilds` lists it: the caller's own standing in it (`owner`, and
 * `permissions`, their guild-level bits as a decimal string), and member counts when asked for.
 */
export function partialGuildWire(
  guild: FakeGuild,
  callerId: string,
  permissions: bigint,
  withCounts: boolean,
) {
  return {
    id: guild.id,
    name: guild.name,
    icon: guild.icon,
    banner: guild.banner ?? null,
    owner: guild.owner_id === callerId,
    permissions: permissions.toString(),
    features: [...guild.features],
    ...(withCounts ? { approximate_member_count: guild.members.length, approximate_presence_count: 0 } : {}),
  };
}

export function memberWire(member: FakeMember, user: FakeUser) {
  return {
    user: userWire(user),
    nick: member.nick,
    avatar: null,
    banner: null,
    roles: [...member.roles],
    joined_at: member.joined_at,
    premium_since: null,
    deaf: false,
    mute: false,
    flags: 0,
    pending: false,
    communication_disabled_until: member.communication_disabled_until ?? null,
  };
}

export function dmChannelWire(channelId: string, recipient: FakeUser) {
  return {
    id: channelId,
    type: CHANNEL_TYPES.dm,
    last_message_id: null,
    flags: 0,
    recipients: [userWire(recipient)],
  };
}

/** What a bot's message says, in the platform's Message object (resources/message, Message Object). */
export interface BotMessage {
  id: string;
  /** Message Types: 0 DEFAULT, 20 CHAT_INPUT_COMMAND (an interaction's reply). */
  type: number;
  channelId: string;
  author: FakeUser;
  content: string;
  embeds: unknown[];
  sentAt: Date;
  editedAt: Date | null;
  flags: number;
}

/** The Message object's fields every message of a bot has; a kind of message adds its own. */
export function botMessageWire(message: BotMessage) {
  return {
    id: message.id,
    type: message.type,
    channel_id: message.channelId,
    author: userWire(message.author),
    content: message.content,
    embeds: message.embeds,
    attachments: [],
    mentions: [],
    mention_roles: [],
    mention_everyone: false,
    pinned: false,
    tts: false,
    timestamp: message.sentAt.toISOString(),
    edited_timestamp: message.editedAt === null ? null : message.editedAt.toISOString(),
    flags: message.flags,
    components: [],
  };
}

export function messageWire(record: DmRecord, author: FakeUser) {
  return {
    ...botMessageWire({
      id: record.messageId,
      type: 0,
      channelId: record.channelId,
      author,
      content: record.content,
      embeds: record.embeds.map(embedWire),
      sentAt: record.sentAt,
      editedAt: null,
      flags: 0,
    }),
    ...(record.nonce === undefined ? {} : { nonce: record.nonce }),
  };
}

/**
 * An embed as the platform stores a bot's: of type `rich`, each field with `inline` (false unless
 * sent true).
 */
function embedWire(embed: unknown) {
  const { fields, ...rest } = embed as { fields?: Record<string, unknown>[] };
  return {
    type: 'rich',
    ...rest,
    ...(fields ? { fields: fields.map((field) => ({ inline: false, ...field })) } : {}),
  };
}

/** The token endpoint's answer (RFC 6749 5.1); `scope` is space-separated. */
export function tokenWire(tokens: IssuedTokens) {
  return {
    token_type: 'Bearer',
    access_token: tokens.accessToken,
    expires_in: tokens.expiresInSeconds,
    refresh_token: tokens.refreshToken,
    scope: tokens.scopes.join(' '),
  };
}

/**
 * The guild's incidents data as the guild object carries it: null while nothing is paused. A time
 * already past reads as not paused (undocumented whether Discord still shows it; the fake says
 * what is in force).
 */
export function incidentsDataWire(guild: FakeGuild, now = Date.now()): FakeIncidentActions | null {
  const data = guild.incidents_data;
  if (!data) return null;
  const inForce = (at: string | null) => (at !== null && Date.parse(at) > now ? at : null);
  const wire = {
    invites_disabled_until: inForce(data.invites_disabled_until),
    dms_disabled_until: inForce(data.dms_disabled_until),
  };
  return wire.invites_disabled_until === null && wire.dms_disabled_until === null ? null : wire;
}
