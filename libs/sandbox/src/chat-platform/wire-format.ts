import { typeSpecificFields } from './channel-fields';
import type { IssuedTokens } from './oauth-store';
import {
  CHANNEL_TYPES,
  type DmRecord,
  type FakeChannel,
  type FakeGuild,
  type FakeMember,
  type FakeRole,
  type FakeUser,
} from './platform-state';

/** The JSON objects the platform answers with, built from the fake's state. */

export function userWire(user: FakeUser) {
  return {
    id: user.id,
    username: user.username,
    global_name: user.global_name,
    discriminator: '0',
    avatar: null,
    ...(user.bot ? { bot: true } : {}),
    public_flags: 0,
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

export function guildWire(guild: FakeGuild) {
  return {
    id: guild.id,
    name: guild.name,
    icon: guild.icon,
    description: guild.description,
    splash: null,
    discovery_splash: null,
    banner: null,
    owner_id: guild.owner_id,
    afk_channel_id: guild.afk_channel_id,
    afk_timeout: guild.afk_timeout,
    widget_enabled: false,
    widget_channel_id: null,
    verification_level: guild.verification_level,
    default_message_notifications: guild.default_message_notifications,
    explicit_content_filter: guild.explicit_content_filter,
    roles: guild.roles.map(roleWire),
    emojis: [],
    stickers: [],
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
    nsfw_level: 0,
    premium_progress_bar_enabled: false,
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
    banner: null,
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
    roles: [...member.roles],
    joined_at: member.joined_at,
    premium_since: null,
    deaf: false,
    mute: false,
    flags: 0,
    pending: false,
    communication_disabled_until: null,
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

export function messageWire(record: DmRecord, author: FakeUser) {
  return {
    id: record.messageId,
    type: 0,
    channel_id: record.channelId,
    author: userWire(author),
    content: record.content,
    embeds: record.embeds,
    ...(record.nonce === undefined ? {} : { nonce: record.nonce }),
    attachments: [],
    mentions: [],
    mention_roles: [],
    mention_everyone: false,
    pinned: false,
    tts: false,
    timestamp: record.sentAt.toISOString(),
    edited_timestamp: null,
    flags: 0,
    components: [],
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
