import { CHANNEL_TYPES, type FakeChannel, type FakeForumFields, type FakeGuild } from './platform-state';

/** The type-dependent channel fields. */
export type TypeSpecificField =
  'topic' | 'rate_limit_per_user' | 'bitrate' | 'user_limit' | ForumField | ChannelTypeField;

/**
 * resources/channel, "Channel Object" and "Modify Channel": a voice or stage channel's
 * `rtc_region` and `video_quality_mode`; the `default_auto_archive_duration` of text,
 * announcement, forum and media channels; the `flags` a bot sets on forum and media channels.
 */
export type ChannelTypeField =
  'rtc_region' | 'video_quality_mode' | 'default_auto_archive_duration' | 'flags';

/**
 * The regions `rtc_region` takes. Discord lists them at `GET /voice/regions` and documents no fixed
 * set; the fake takes these ids (the regions Discord's voice servers have long answered) and refuses
 * others, the stricter reading.
 */
export const VOICE_REGIONS: readonly string[] = [
  'brazil',
  'hongkong',
  'india',
  'japan',
  'rotterdam',
  'singapore',
  'south-korea',
  'southafrica',
  'sydney',
  'us-central',
  'us-east',
  'us-south',
  'us-west',
];

/** REQUIRE_TAG (1 << 4) for forum and media channels; HIDE_MEDIA_DOWNLOAD_OPTIONS (1 << 15) for media. */
export const SETTABLE_FLAGS_BY_TYPE: Record<number, number> = { 15: 1 << 4, 16: (1 << 4) | (1 << 15) };

const VOICE_FIELDS: readonly ChannelTypeField[] = ['rtc_region', 'video_quality_mode'];

/** The fields of forum and media channels (resources/channel, "Channel Object"). */
export type ForumField = keyof FakeForumFields;

/**
 * A media channel has a forum's fields but its layout ("default_forum_layout ... used to display
 * posts in GUILD_FORUM channels"). `default_thread_rate_limit_per_user` is documented for text and
 * announcement channels too; the fake keeps it for forum and media channels only.
 */
const MEDIA_FIELDS: readonly ForumField[] = [
  'available_tags',
  'default_reaction_emoji',
  'default_sort_order',
  'default_thread_rate_limit_per_user',
];
const FORUM_FIELDS: readonly ForumField[] = [...MEDIA_FIELDS, 'default_forum_layout'];

/** Which fields each guild channel type has (a category none, voice no topic, text no bitrate). */
const FIELDS_BY_TYPE: Record<number, readonly TypeSpecificField[]> = {
  0: ['topic', 'rate_limit_per_user', 'default_auto_archive_duration'],
  2: ['bitrate', 'user_limit', 'rate_limit_per_user', ...VOICE_FIELDS],
  4: [],
  5: ['topic', 'default_auto_archive_duration'],
  13: ['bitrate', 'user_limit', 'rate_limit_per_user', ...VOICE_FIELDS],
  15: ['topic', 'rate_limit_per_user', ...FORUM_FIELDS, 'default_auto_archive_duration', 'flags'],
  16: ['topic', 'rate_limit_per_user', ...MEDIA_FIELDS, 'default_auto_archive_duration', 'flags'],
};

/**
 * A new channel's values of these fields. The docs mark `default_auto_archive_duration` optional
 * and do not say what a channel that never set it reports; the fake reports 1440 (the client's
 * default) on every type that has it, so a reader never meets it absent.
 */
const TYPE_FIELD_DEFAULTS: Required<Pick<FakeChannel, ChannelTypeField>> = {
  rtc_region: null,
  video_quality_mode: 1,
  default_auto_archive_duration: 1440,
  flags: 0,
};

/** A forum's fields before anything sets them, as the platform reports a new forum's. */
const FORUM_DEFAULTS: Required<FakeForumFields> = {
  available_tags: [],
  default_reaction_emoji: null,
  default_sort_order: null,
  default_forum_layout: 0,
  default_thread_rate_limit_per_user: 0,
};

const DEFAULT_BITRATE = 64_000;

/**
 * The highest voice bitrate by the guild's boost level (`premium_tier` 0-3): 96, 128, 256 and 384
 * kbps (Discord's Audio Bitrate FAQ; resources/channel "Modify Channel" gives the 8000 minimum and
 * 96000 without boosts). Stage channels stop at 64 kbps whatever the level. VIP servers' higher
 * cap is left out: its specifics are undocumented, and without it the fake is the stricter.
 */
const MAX_BITRATE_BY_TIER: readonly number[] = [96_000, 128_000, 256_000, 384_000];
const MAX_STAGE_BITRATE = 64_000;
/** resources/channel "Channel Object" topic: 0-4096 characters for forum and media channels, 0-1024 for the others. */
const MAX_TOPIC = 1_024;
const MAX_LONG_TOPIC = 4_096;
const MEDIA_CHANNEL_TYPE = 16;

export function maxBitrateIn(guild: FakeGuild, type: number): number {
  if (type === CHANNEL_TYPES.stage) return MAX_STAGE_BITRATE;
  return MAX_BITRATE_BY_TIER[guild.premium_tier] ?? MAX_BITRATE_BY_TIER[0];
}

export function maxTopicOf(type: number): number {
  return type === CHANNEL_TYPES.forum || type === MEDIA_CHANNEL_TYPE ? MAX_LONG_TOPIC : MAX_TOPIC;
}

export function channelHasField(type: number, field: TypeSpecificField): boolean {
  return FIELDS_BY_TYPE[type]?.includes(field) ?? false;
}

export function typeSpecificFields(type: number): readonly TypeSpecificField[] {
  return FIELDS_BY_TYPE[type] ?? [];
}

/** After a create or a type change: fields the type lacks become null, missing ones get defaults. */
export function fitFieldsToType(channel: FakeChannel): void {
  const has = (field: TypeSpecificField) => channelHasField(channel.type, field);
  channel.topic = has('topic') ? channel.topic : null;
  channel.rate_limit_per_user = has('rate_limit_per_user') ? (channel.rate_limit_per_user ?? 0) : null;
  channel.bitrate = has('bitrate') ? (channel.bitrate ?? DEFAULT_BITRATE) : null;
  channel.user_limit = has('user_limit') ? (channel.user_limit ?? 0) : null;
  for (const field of FORUM_FIELDS) {
    if (!has(field)) delete channel[field];
    else if (channel[field] === undefined)
      Object.assign(channel, { [field]: structuredClone(FORUM_DEFAULTS[field]) });
  }
  for (const field of Object.keys(TYPE_FIELD_DEFAULTS) as ChannelTypeField[]) {
    if (!has(field)) delete channel[field];
    else if (channel[field] === undefined) Object.assign(channel, { [field]: TYPE_FIELD_DEFAULTS[field] });
  }
  // A type change (text <-> announcement) keeps no flag the new type does not take.
  if (channel.flags !== undefined) channel.flags &= SETTABLE_FLAGS_BY_TYPE[channel.type] ?? 0;
}
