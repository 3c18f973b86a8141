import {
  CHANNEL_TYPE,
  type GuildSettings,
  type GuildState,
  type PlatformChannel,
  type PlatformRole,
} from '@lib/chat-platform';

/** Roles and channels for tests; a small guild for live-sync tests: @everyone and two roles, a category with two channels. */
export const GUILD = '100000000000000001';
export const MODS = '100000000000000011';
export const MEMBERS = '100000000000000012';
export const CATEGORY = '100000000000000021';
export const GENERAL = '100000000000000022';
export const RULES = '100000000000000023';

/** A role with the platform's defaults; `fields` replace them. */
export function platformRole(id: string, fields: Partial<PlatformRole> = {}): PlatformRole {
  return {
    id,
    name: `role ${id}`,
    color: 0,
    colors: { primary_color: fields.color ?? 0, secondary_color: null, tertiary_color: null },
    position: 1,
    permissions: '0',
    hoist: false,
    mentionable: false,
    managed: false,
    icon: null,
    unicode_emoji: null,
    ...fields,
  };
}

/** A text channel with the platform's defaults; `fields` replace them. */
export function platformChannel(id: string, fields: Partial<PlatformChannel> = {}): PlatformChannel {
  return {
    id,
    type: CHANNEL_TYPE.text,
    name: `channel-${id}`,
    position: 0,
    parent_id: null,
    topic: null,
    nsfw: false,
    rate_limit_per_user: 0,
    bitrate: null,
    user_limit: null,
    ...fields,
  };
}

/** A guild's settings with the platform's defaults; `fields` replace them. */
export function guildSettings(id: string, fields: Partial<GuildSettings> = {}): GuildSettings {
  return {
    id,
    name: 'Guild',
    description: null,
    icon: null,
    banner: null,
    splash: null,
    discovery_splash: null,
    owner_id: '200000000000000001',
    verification_level: 1,
    default_message_notifications: 0,
    explicit_content_filter: 0,
    afk_channel_id: null,
    afk_timeout: 300,
    system_channel_id: null,
    system_channel_flags: 0,
    rules_channel_id: null,
    public_updates_channel_id: null,
    preferred_locale: 'en-US',
    premium_tier: 0,
    features: [],
    ...fields,
  };
}

export function role(id: string, name: string, position: number): PlatformRole {
  return platformRole(id, { name, position });
}

export function channel(id: string, name: string, position: number, fields: Partial<PlatformChannel> = {}) {
  return platformChannel(id, { name, position, ...fields });
}

export function guildState(platformGuildId = GUILD): GuildState {
  return {
    guild: guildSettings(platformGuildId, { system_channel_id: GENERAL, rules_channel_id: RULES }),
    roles: [role(platformGuildId, '@everyone', 0), role(MEMBERS, 'members', 1), role(MODS, 'mods', 2)],
    channels: [
      channel(CATEGORY, 'text', 0, { type: 4, rate_limit_per_user: null }),
      channel(GENERAL, 'general', 1, { parent_id: CATEGORY }),
      channel(RULES, 'rules', 2, { parent_id: CATEGORY }),
    ],
    permission_overrides: [
      { channel_id: RULES, id: platformGuildId, type: 'role', allow: '0', deny: '2048' },
      { channel_id: RULES, id: MODS, type: 'role', allow: '2048', deny: '0' },
    ],
  };
}
