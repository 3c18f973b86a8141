import type { FakeGuild, FakeUser } from '../platform-state';
import { channelWire, guildWire, memberWire, userWire } from '../wire-format';

/** READY: the account, and its guilds as unavailable stubs that GUILD_CREATEs then fill in. */
export function readyData(options: {
  user: FakeUser;
  guildIds: string[];
  sessionId: string;
  resumeUrl: string;
  shard: [number, number];
}) {
  return {
    v: 10,
    user: { ...userWire(options.user), verified: true, mfa_enabled: false, flags: 0 },
    guilds: options.guildIds.map((id) => ({ id, unavailable: true })),
    session_id: options.sessionId,
    session_type: 'normal',
    resume_gateway_url: options.resumeUrl,
    shard: options.shard,
    // A bot's application shares its user's id.
    application: { id: options.user.id, flags: 0 },
    private_channels: [],
    presences: [],
    relationships: [],
    guild_join_requests: [],
    geo_ordered_rtc_regions: [],
    user_settings: {},
  };
}

/**
 * GUILD_CREATE: the whole guild for one account. Without the presences intent the platform lists
 * only the account's own member (and members in voice, which the fake has none of); the rest come
 * from REQUEST_GUILD_MEMBERS or REST.
 */
export function guildCreateData(
  guild: FakeGuild,
  account: FakeUser,
  largeThreshold: number,
  expressions: Parameters<typeof guildWire>[1],
) {
  const own = guild.members.find((member) => member.user_id === account.id);
  return {
    ...guildWire(guild, expressions),
    joined_at: own?.joined_at ?? new Date().toISOString(),
    large: guild.members.length > largeThreshold,
    unavailable: false,
    member_count: guild.members.length,
    members: own ? [memberWire(own, account)] : [],
    channels: guild.channels.map(channelWire),
    threads: [],
    presences: [],
    voice_states: [],
    stage_instances: [],
    guild_scheduled_events: [],
    soundboard_sounds: [],
  };
}
