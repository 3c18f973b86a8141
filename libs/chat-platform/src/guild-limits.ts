import { CHANNEL_TYPE, type GuildSettings, type RoleColors } from './guild-state';

/**
 * Limits that depend on the live guild, as the platform enforces them (it answers 400 50035
 * Invalid Form Body past them). Discord documents them in resources/channel ("Channel Object",
 * "Modify Channel": bitrate at least 8000, topic 0-1024 characters, 0-4096 for forum and media
 * channels) and in its Audio Bitrate FAQ (96, 128, 256, 384 kbps by boost level 0-3; stage
 * channels 64 kbps).
 */

export const MIN_BITRATE = 8_000;
/** Highest voice bitrate by `premium_tier` (0 for a guild without boosts). */
const MAX_BITRATE_BY_TIER: readonly number[] = [96_000, 128_000, 256_000, 384_000];
const MAX_STAGE_BITRATE = 64_000;
/**
 * A guild with the VIP_REGIONS feature gets more than its boost level's cap. Discord documents only
 * "128000 for VIP servers" (Modify Channel) next to boosted figures up to 384000; how the two
 * combine is undocumented, so this reads the stricter of the plausible answers: VIP lifts the
 * cap to at least 128000 and never above 384000.
 */
const VIP_REGIONS = 'VIP_REGIONS';
const VIP_MIN_CAP = 128_000;

/** A channel type's topic limit, in characters. */
const TOPIC_MAX = 1_024;
const LONG_TOPIC_MAX = 4_096;
/** Media channels (type 16) share the forum's longer topic. */
const MEDIA_CHANNEL_TYPE = 16;

/** Gradient (secondary) and holographic (tertiary) role colours need this guild feature. */
export const ENHANCED_ROLE_COLORS = 'ENHANCED_ROLE_COLORS';
/** The only holographic style the platform accepts (it refuses any other tertiary colour). */
export const HOLOGRAPHIC_ROLE_COLORS: RoleColors = {
  primary_color: 11_127_295,
  secondary_color: 16_759_788,
  tertiary_color: 16_761_760,
};

type GuildLimitsSource = Pick<GuildSettings, 'premium_tier' | 'features'>;

/** The highest bitrate a channel of `type` may have in `guild` (stage channels have their own). */
export function maxBitrate(type: number, guild: GuildLimitsSource): number {
  if (type === CHANNEL_TYPE.stage) return MAX_STAGE_BITRATE;
  const tier = Math.min(Math.max(guild.premium_tier, 0), MAX_BITRATE_BY_TIER.length - 1);
  const boosted = MAX_BITRATE_BY_TIER[tier];
  return guild.features.includes(VIP_REGIONS) ? Math.max(boosted, VIP_MIN_CAP) : boosted;
}

/** The longest topic a channel of `type` may have. */
export function maxTopicLength(type: number): number {
  return type === CHANNEL_TYPE.forum || type === MEDIA_CHANNEL_TYPE ? LONG_TOPIC_MAX : TOPIC_MAX;
}

/** Whether the guild may give a role more than one colour. */
export function allowsEnhancedRoleColors(guild: Pick<GuildSettings, 'features'>): boolean {
  return guild.features.includes(ENHANCED_ROLE_COLORS);
}

/**
 * Custom emoji slots by boost level (Discord's "Server Boosting" FAQ: 50, 100, 150, 250), counted
 * apart for static and animated emojis; the MORE_EMOJI feature (given to some partnered guilds)
 * raises it to at least 200, which this reads as 200 (the stricter reading: its exact figure is
 * not documented). Sticker slots: 5, 15, 30, 60.
 */
const EMOJI_SLOTS_BY_TIER: readonly number[] = [50, 100, 150, 250];
const STICKER_SLOTS_BY_TIER: readonly number[] = [5, 15, 30, 60];
const MORE_EMOJI_SLOTS = 200;

function tierOf(guild: GuildLimitsSource, table: readonly number[]): number {
  return table[Math.min(Math.max(guild.premium_tier, 0), table.length - 1)];
}

/** How many static (or, apart, animated) custom emojis the guild may hold. */
export function emojiSlots(guild: GuildLimitsSource): number {
  const slots = tierOf(guild, EMOJI_SLOTS_BY_TIER);
  return guild.features.includes('MORE_EMOJI') ? Math.max(slots, MORE_EMOJI_SLOTS) : slots;
}

export function stickerSlots(guild: GuildLimitsSource): number {
  return tierOf(guild, STICKER_SLOTS_BY_TIER);
}

/**
 * The guild feature each of its images needs (resources/guild, "Guild Features"): a banner
 * BANNER, an invite splash INVITE_SPLASH, a discovery splash DISCOVERABLE; an animated icon or
 * banner (hash `a_...`) ANIMATED_ICON or ANIMATED_BANNER. The icon needs none.
 */
export function guildImageRefusal(
  slot: 'icon' | 'banner' | 'splash' | 'discovery_splash',
  animated: boolean,
  guild: Pick<GuildSettings, 'features'>,
): string | null {
  const needed = {
    icon: animated ? 'ANIMATED_ICON' : null,
    banner: animated ? 'ANIMATED_BANNER' : 'BANNER',
    splash: 'INVITE_SPLASH',
    discovery_splash: 'DISCOVERABLE',
  }[slot];
  return needed && !guild.features.includes(needed) ? needed : null;
}

/** Lottie stickers may be uploaded only by verified and partnered guilds (Create Guild Sticker). */
export function mayUploadLottie(guild: Pick<GuildSettings, 'features'>): boolean {
  return guild.features.includes('VERIFIED') || guild.features.includes('PARTNERED');
}
