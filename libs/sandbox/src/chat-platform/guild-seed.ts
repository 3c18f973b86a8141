import { BOT_PERMISSIONS } from '@lib/chat-platform';
import { PermissionFlagsBits as P } from 'discord-api-types/v10';
import { channelHasField, fitFieldsToType } from './channel-fields';
import {
  CONTENT_TYPES,
  type ExpressionImage,
  PLACEHOLDER_ANIMATED_GIF,
  PLACEHOLDER_PNG,
} from './expression-images';
import { GUILD_IMAGE_FIELDS, type GuildImageField, describeImage } from './guild-images';
import {
  CHANNEL_TYPES,
  type FakeChannel,
  type FakeMember,
  type FakeOverwrite,
  type FakeRole,
  type FakeUser,
  MAX_GUILD_CHANNELS,
  MAX_GUILD_ROLES,
} from './platform-state';
import type { PlatformStore } from './platform-store';
import { type GuildSetupSpec, type SeededSetup, seedGuildSetup } from './guild-setup-seed';

export interface RoleSpec {
  name: string;
  id?: string;
  permissions?: bigint;
  color?: number;
  /** Gradient or holographic colours (the guild needs ENHANCED_ROLE_COLORS); `color` is their primary. */
  colors?: { primary_color: number; secondary_color?: number | null; tertiary_color?: number | null };
  hoist?: boolean;
  mentionable?: boolean;
  /** The icon's image (PNG, JPEG or GIF bytes), served by the CDN at its hash. */
  icon?: Buffer | null;
  unicode_emoji?: string | null;
}

/** An overwrite for a role of the spec (or '@everyone'), or for a member by username. */
export type OverwriteSpec = ({ role: string; member?: never } | { member: string; role?: never }) & {
  allow?: bigint;
  deny?: bigint;
};

export interface ChannelSpec {
  name: string;
  id?: string;
  type?: Exclude<keyof typeof CHANNEL_TYPES, 'category' | 'dm'>;
  topic?: string;
  nsfw?: boolean;
  rate_limit_per_user?: number;
  bitrate?: number;
  user_limit?: number;
  overwrites?: OverwriteSpec[];
  /**
   * A forum's or media channel's fields (ignored for other types): its tags, each given an id,
   * with a unicode emoji if any; the add-reaction emoji, a unicode emoji; the rest as the
   * channel object has them. Unset ones have a new forum's defaults.
   */
  tags?: { name: string; moderated?: boolean; emoji_name?: string }[];
  default_reaction_emoji?: string;
  default_sort_order?: 0 | 1 | null;
  default_forum_layout?: 0 | 1 | 2;
  default_thread_rate_limit_per_user?: number;
}

export interface CategorySpec {
  name: string;
  id?: string;
  overwrites?: OverwriteSpec[];
  channels?: ChannelSpec[];
}

export interface MemberSpec {
  username: string;
  /** Reuses the user with this id, or creates it with this id. */
  id?: string;
  /** Role names from the spec. */
  roles?: string[];
  dmsClosed?: boolean;
}

/** A user banned from the guild (never a member of it too), created as a member would be. */
export interface BanSpec {
  username: string;
  /** Reuses the user with this id, or creates it with this id. */
  id?: string;
  /** The ban's reason, as its audit-log reason would have given it; default none. */
  reason?: string | null;
}

/** A custom emoji the guild has, as if uploaded by its owner. */
export interface EmojiSpec {
  name: string;
  /** Default false; then the default image is a two-frame GIF. */
  animated?: boolean;
  /** Names of the roles allowed to use it; default everyone. */
  roles?: string[];
  /** What the CDN serves for it; default a 1x1 PNG (or GIF when animated). */
  image?: ExpressionImage;
}

/** A sticker the guild has (PNG), as if uploaded by its owner. */
export interface StickerSpec {
  name: string;
  description?: string | null;
  /** Default the name. */
  tags?: string;
  /** What the CDN serves for it; default a 1x1 PNG. */
  image?: ExpressionImage;
}

export interface GuildSpec {
  name: string;
  id?: string;
  owner?: { id?: string; username?: string };
  /** Channel settings name channels of the spec. */
  settings?: {
    description?: string | null;
    verification_level?: number;
    default_message_notifications?: number;
    explicit_content_filter?: number;
    afk_timeout?: number;
    system_channel_flags?: number;
    preferred_locale?: string;
    afk_channel?: string;
    system_channel?: string;
    rules_channel?: string;
    public_updates_channel?: string;
  };
  everyonePermissions?: bigint;
  /**
   * The guild's icon, banner, splash and discovery splash as image bytes (PNG, JPEG or GIF), served
   * by the CDN at their hashes. Not checked against the guild's features: the test's world.
   */
  images?: Partial<Record<GuildImageField, Buffer>>;
  /** Server boost level 0-3; default 0, as a new guild has. */
  premium_tier?: 0 | 1 | 2 | 3;
  /**
   * Guild features, e.g. ENHANCED_ROLE_COLORS, or BANNER and ROLE_ICONS for the images; default
   * none. They are not derived from `premium_tier`: a boosted guild's spec names its features.
   */
  features?: string[];
  /** Lowest first: they get positions 1..n around the bot's role. Names must be unique. */
  roles?: RoleSpec[];
  /** Channels outside any category. Channel and category names must be unique. */
  channels?: ChannelSpec[];
  categories?: CategorySpec[];
  /** Thousands are fine: see `memberSpecs` for a guild of any size. */
  members?: MemberSpec[];
  bans?: BanSpec[];
  /** Names must be unique; the boost tier's slots are not enforced here. */
  emojis?: EmojiSpec[];
  stickers?: StickerSpec[];
  bot?: {
    /**
     * The permissions of the bot's managed role; default the invite's (BOT_PERMISSIONS), as a real
     * install has. A test that needs another bot says why.
     */
    permissions?: bigint;
    /** 1-based position of the bot's role among the non-@everyone roles; default the top. */
    rolePosition?: number;
    /** false seeds a guild the bot is not in (or was removed from). */
    member?: boolean;
  };
  /** AutoMod rules, webhooks, welcome screen and onboarding (`./guild-setup-seed.ts`); default none. */
  setup?: GuildSetupSpec;
}

export interface SeededGuild {
  guildId: string;
  ownerId: string;
  everyoneRoleId: string;
  botRoleId: string;
  /** Ids by name (roles, channels and categories) and by username (members, banned users). */
  roles: Record<string, string>;
  channels: Record<string, string>;
  members: Record<string, string>;
  bans: Record<string, string>;
  /** Ids by name. */
  emojis: Record<string, string>;
  stickers: Record<string, string>;
  /** The setup's AutoMod rules and webhooks, ids by name; empty without a `setup`. */
  setup: SeededSetup;
}

/**
 * Puts an emoji in the guild as an upload by `uploaderId` would (null: unknown), with its image,
 * without an audit-log entry or a gateway event; returns its id.
 */
export function seedEmoji(
  store: PlatformStore,
  guildId: string,
  uploaderId: string | null,
  { name, animated = false, image }: Omit<EmojiSpec, 'roles'>,
  roleIds: string[] = [],
): string {
  const id = store.ids.next();
  const emoji = { id, user_id: uploaderId, name, roles: roleIds, require_colons: true, managed: false };
  store.expressions.emojis(guildId).push({ ...emoji, animated, available: true });
  const placeholder = animated
    ? { bytes: PLACEHOLDER_ANIMATED_GIF, contentType: CONTENT_TYPES.gif }
    : { bytes: PLACEHOLDER_PNG, contentType: CONTENT_TYPES.png };
  store.expressions.setImage(id, image ?? placeholder);
  return id;
}

/** Puts a PNG sticker in the guild as `seedEmoji` puts an emoji; returns its id. */
export function seedSticker(
  store: PlatformStore,
  guildId: string,
  uploaderId: string | null,
  { name, description = null, tags = name, image }: StickerSpec,
): string {
  const id = store.ids.next();
  store.expressions.stickers(guildId).push({
    id,
    user_id: uploaderId,
    name,
    description,
    tags,
    type: 2,
    format_type: 1,
    available: true,
    guild_id: guildId,
  });
  store.expressions.setImage(id, image ?? { bytes: PLACEHOLDER_PNG, contentType: CONTENT_TYPES.png });
  return id;
}

/**
 * `count` members for a spec, named `${prefix}-0001` and so on (zero-padded, so their names sort as
 * they were created, and so do their ids), each with the role names `roles(index)` gives (index
 * from 0): a guild of thousands for tests and benchmarks, seeded in one go rather than request by
 * request.
 */
export function memberSpecs(
  count: number,
  options: { prefix?: string; roles?: (index: number) => string[] } = {},
): MemberSpec[] {
  const { prefix = 'member', roles = () => [] } = options;
  const width = Math.max(4, String(count).length);
  return Array.from({ length: count }, (_, index) => ({
    username: `${prefix}-${String(index + 1).padStart(width, '0')}`,
    roles: roles(index),
  }));
}

/** `count` bans named as `memberSpecs` names members (prefix `banned`), with `reason(index)` each. */
export function banSpecs(
  count: number,
  options: { prefix?: string; reason?: (index: number) => string | null } = {},
): BanSpec[] {
  const { prefix = 'banned', reason = () => null } = options;
  return memberSpecs(count, { prefix }).map(({ username }, index) => ({ username, reason: reason(index) }));
}

/** What a fresh guild gives @everyone on the platform. */
export const DEFAULT_EVERYONE_PERMISSIONS =
  P.ViewChannel |
  P.CreateInstantInvite |
  P.ChangeNickname |
  P.SendMessages |
  P.EmbedLinks |
  P.AttachFiles |
  P.AddReactions |
  P.ReadMessageHistory |
  P.Connect |
  P.Speak |
  P.UseVAD;

function role(id: string, name: string, fields: Partial<FakeRole> = {}): FakeRole {
  return {
    id,
    name,
    color: 0,
    colors: { primary_color: 0, secondary_color: null, tertiary_color: null },
    hoist: false,
    icon: null,
    unicode_emoji: null,
    position: 0,
    permissions: '0',
    managed: false,
    mentionable: false,
    flags: 0,
    ...fields,
  };
}

/** Keeps an image's bytes for the CDN and returns its hash. */
function seedImage(
  store: PlatformStore,
  kind: Parameters<PlatformStore['images']['set']>[0],
  ownerId: string,
  bytes: Buffer,
): string {
  const described = describeImage(bytes);
  if (!described) throw new Error(`guild spec gives an image that is not PNG, JPEG, GIF, WebP or AVIF`);
  store.images.set(kind, ownerId, described);
  return described.hash;
}

function lookup(ids: Record<string, string>, name: string, what: string): string {
  const id = ids[name];
  if (id === undefined) throw new Error(`guild spec names an unknown ${what} "${name}"`);
  return id;
}

/** @everyone (the guild's id, position 0), then the spec's roles with the bot's managed role among them. */
function seedRoles(store: PlatformStore, spec: GuildSpec, guildId: string) {
  const ids: Record<string, string> = { '@everyone': guildId };
  const everyone = role(guildId, '@everyone', {
    permissions: (spec.everyonePermissions ?? DEFAULT_EVERYONE_PERMISSIONS).toString(),
  });
  const botRole = role(store.ids.next(), store.bot.username, {
    permissions: (spec.bot?.permissions ?? BOT_PERMISSIONS).toString(),
    managed: true,
    tags: { bot_id: store.bot.id },
  });
  const ordered = (spec.roles ?? []).map((roleSpec) => {
    const seeded = role(roleSpec.id ?? store.ids.next(), roleSpec.name, {
      permissions: (roleSpec.permissions ?? 0n).toString(),
      color: roleSpec.colors?.primary_color ?? roleSpec.color ?? 0,
      colors: {
        primary_color: roleSpec.colors?.primary_color ?? roleSpec.color ?? 0,
        secondary_color: roleSpec.colors?.secondary_color ?? null,
        tertiary_color: roleSpec.colors?.tertiary_color ?? null,
      },
      hoist: roleSpec.hoist ?? false,
      mentionable: roleSpec.mentionable ?? false,
      unicode_emoji: roleSpec.unicode_emoji ?? null,
    });
    if (roleSpec.icon) seeded.icon = seedImage(store, 'role_icon', seeded.id, roleSpec.icon);
    ids[roleSpec.name] = seeded.id;
    return seeded;
  });
  ordered.splice((spec.bot?.rolePosition ?? ordered.length + 1) - 1, 0, botRole);
  ordered.forEach((seeded, index) => (seeded.position = index + 1));
  if (ordered.length + 1 > MAX_GUILD_ROLES) throw new Error(`a guild has at most ${MAX_GUILD_ROLES} roles`);
  return { roles: [everyone, ...ordered], ids, botRoleId: botRole.id };
}

/** The owner, the bot (unless left out) and the spec's members; ids by username. */
function seedMembers(
  store: PlatformStore,
  spec: GuildSpec,
  owner: FakeUser,
  roleIds: Record<string, string>,
  botRoleId: string,
) {
  const joinedAt = new Date().toISOString();
  const ids: Record<string, string> = { [owner.username]: owner.id };
  const members: FakeMember[] = [{ user_id: owner.id, roles: [], nick: null, joined_at: joinedAt }];
  if (spec.bot?.member !== false) {
    members.push({ user_id: store.bot.id, roles: [botRoleId], nick: null, joined_at: joinedAt });
  }
  for (const memberSpec of spec.members ?? []) {
    const user = store.ensureUser(memberSpec.id, memberSpec.username);
    ids[memberSpec.username] = user.id;
    if (memberSpec.dmsClosed) store.dmsClosed.add(user.id);
    const roles = (memberSpec.roles ?? []).map((name) => lookup(roleIds, name, 'role'));
    members.push({ user_id: user.id, roles, nick: null, joined_at: joinedAt });
  }
  return { members, ids };
}

/** The banned users (none of them a member) and their reasons; ids by username. */
function seedBans(store: PlatformStore, spec: GuildSpec, members: FakeMember[]) {
  const memberIds = new Set(members.map((member) => member.user_id));
  const ids: Record<string, string> = {};
  const bans = new Map<string, string | null>();
  for (const banSpec of spec.bans ?? []) {
    const user = store.ensureUser(banSpec.id, banSpec.username);
    if (memberIds.has(user.id)) throw new Error(`guild spec bans its member "${banSpec.username}"`);
    ids[banSpec.username] = user.id;
    bans.set(user.id, banSpec.reason ?? null);
  }
  return { bans, ids };
}

/** A forum's or media channel's fields from its spec, over the defaults `fitFieldsToType` gave. */
function seedForumFields(store: PlatformStore, channel: FakeChannel, spec: ChannelSpec): void {
  const { tags, default_reaction_emoji: reaction, ...settings } = spec;
  channel.available_tags = (tags ?? []).map((tag) => ({
    id: store.ids.next(),
    name: tag.name,
    moderated: tag.moderated ?? false,
    emoji_id: null,
    emoji_name: tag.emoji_name ?? null,
  }));
  if (reaction) channel.default_reaction_emoji = { emoji_id: null, emoji_name: reaction };
  if (settings.default_sort_order !== undefined) channel.default_sort_order = settings.default_sort_order;
  if (settings.default_thread_rate_limit_per_user !== undefined) {
    channel.default_thread_rate_limit_per_user = settings.default_thread_rate_limit_per_user;
  }
  if (settings.default_forum_layout !== undefined && channelHasField(channel.type, 'default_forum_layout')) {
    channel.default_forum_layout = settings.default_forum_layout;
  }
}

/** Channels outside categories get positions 0..n, categories 0..n, and each category's channels 0..n. */
function seedChannels(
  store: PlatformStore,
  spec: GuildSpec,
  guildId: string,
  roleIds: Record<string, string>,
  memberIds: Record<string, string>,
) {
  const ids: Record<string, string> = {};
  const channels: FakeChannel[] = [];
  const overwrites = (list: OverwriteSpec[] = []): FakeOverwrite[] =>
    list.map((overwrite) => ({
      id:
        overwrite.role !== undefined
          ? lookup(roleIds, overwrite.role, 'role')
          : lookup(memberIds, overwrite.member, 'member'),
      type: overwrite.role !== undefined ? 0 : 1,
      allow: (overwrite.allow ?? 0n).toString(),
      deny: (overwrite.deny ?? 0n).toString(),
    }));
  const add = (channelSpec: ChannelSpec, type: number, position: number, parentId: string | null) => {
    const channel: FakeChannel = {
      id: channelSpec.id ?? store.ids.next(),
      type,
      guild_id: guildId,
      name: channelSpec.name,
      position,
      parent_id: parentId,
      topic: channelSpec.topic ?? null,
      nsfw: channelSpec.nsfw ?? false,
      rate_limit_per_user: channelSpec.rate_limit_per_user ?? null,
      bitrate: channelSpec.bitrate ?? null,
      user_limit: channelSpec.user_limit ?? null,
      permission_overwrites: overwrites(channelSpec.overwrites),
    };
    fitFieldsToType(channel);
    if (channelHasField(type, 'available_tags')) seedForumFields(store, channel, channelSpec);
    ids[channelSpec.name] = channel.id;
    channels.push(channel);
    return channel.id;
  };
  const typeOf = (channelSpec: ChannelSpec) => CHANNEL_TYPES[channelSpec.type ?? 'text'];
  (spec.channels ?? []).forEach((channelSpec, index) => add(channelSpec, typeOf(channelSpec), index, null));
  (spec.categories ?? []).forEach(({ channels: children = [], ...categorySpec }, index) => {
    const categoryId = add(categorySpec, CHANNEL_TYPES.category, index, null);
    children.forEach((channelSpec, position) => add(channelSpec, typeOf(channelSpec), position, categoryId));
  });
  if (channels.length > MAX_GUILD_CHANNELS)
    throw new Error(`a guild has at most ${MAX_GUILD_CHANNELS} channels`);
  return { channels, ids };
}

/** Builds a guild from a spec straight into the store (no permission checks: this is the test's world). */
export function seedGuild(store: PlatformStore, spec: GuildSpec): SeededGuild {
  const guildId = spec.id ?? store.ids.nextSpread();
  if (store.guilds.has(guildId)) throw new Error(`guild ${guildId} already exists`);
  const owner = store.ensureUser(spec.owner?.id, spec.owner?.username ?? 'owner');
  const roles = seedRoles(store, spec, guildId);
  const members = seedMembers(store, spec, owner, roles.ids, roles.botRoleId);
  const channels = seedChannels(store, spec, guildId, roles.ids, members.ids);
  const bans = seedBans(store, spec, members.members);
  const settings = spec.settings ?? {};
  const channelId = (name: string | undefined) => (name ? lookup(channels.ids, name, 'channel') : null);
  const images = Object.fromEntries(
    GUILD_IMAGE_FIELDS.map((field) => {
      const bytes = spec.images?.[field];
      return [field, bytes ? seedImage(store, field, guildId, bytes) : null];
    }),
  ) as Record<GuildImageField, string | null>;
  store.guilds.set(guildId, {
    id: guildId,
    name: spec.name,
    description: settings.description ?? null,
    ...images,
    owner_id: owner.id,
    verification_level: settings.verification_level ?? 0,
    default_message_notifications: settings.default_message_notifications ?? 0,
    explicit_content_filter: settings.explicit_content_filter ?? 0,
    afk_channel_id: channelId(settings.afk_channel),
    afk_timeout: settings.afk_timeout ?? 300,
    system_channel_id: channelId(settings.system_channel),
    system_channel_flags: settings.system_channel_flags ?? 0,
    rules_channel_id: channelId(settings.rules_channel),
    public_updates_channel_id: channelId(settings.public_updates_channel),
    preferred_locale: settings.preferred_locale ?? 'en-US',
    premium_tier: spec.premium_tier ?? 0,
    features: [...(spec.features ?? [])],
    roles: roles.roles,
    channels: channels.channels,
    members: members.members,
  });
  if (bans.bans.size > 0) store.bans.set(guildId, bans.bans);
  const emojis: Record<string, string> = {};
  for (const { roles: roleNames = [], ...emoji } of spec.emojis ?? []) {
    const roleIds = roleNames.map((name) => lookup(roles.ids, name, 'role'));
    emojis[emoji.name] = seedEmoji(store, guildId, owner.id, emoji, roleIds);
  }
  const stickers: Record<string, string> = {};
  for (const sticker of spec.stickers ?? [])
    stickers[sticker.name] = seedSticker(store, guildId, owner.id, sticker);
  const specIds = { roles: roles.ids, channels: channels.ids, emojis };
  const setup = seedGuildSetup(store, guildId, owner.id, spec.setup ?? {}, specIds);
  return {
    guildId,
    ownerId: owner.id,
    everyoneRoleId: guildId,
    botRoleId: roles.botRoleId,
    roles: roles.ids,
    channels: channels.ids,
    members: members.ids,
    bans: bans.ids,
    emojis,
    stickers,
    setup,
  };
}
