import { PermissionFlagsBits } from 'discord-api-types/v10';
import { BotAuthority } from '../bot-authority';
import { FormBody } from '../form-body';
import { GuildWatch } from '../guild-change';
import { GUILD_IMAGE_FIELDS, type GuildImageField } from '../guild-images';
import { platformError } from '../platform-error';
import { CHANNEL_TYPES, type FakeGuild, type FakeGuildSettings } from '../platform-state';
import { guildWire } from '../wire-format';
import { GUILD_IMAGE_RULES, type StoredImage, readImage } from './image-form';
import { type PlatformRoute, ok } from './platform-route';

const AFK_TIMEOUTS = [60, 300, 900, 1800, 3600] as const;
const LOCALE = /^[a-z]{2}(-[A-Z]{2})?$/;

type ChannelSetting =
  'afk_channel_id' | 'system_channel_id' | 'rules_channel_id' | 'public_updates_channel_id';

/** The channel type each channel setting must point at. */
const CHANNEL_SETTINGS: Record<ChannelSetting, number> = {
  afk_channel_id: CHANNEL_TYPES.voice,
  system_channel_id: CHANNEL_TYPES.text,
  rules_channel_id: CHANNEL_TYPES.text,
  public_updates_channel_id: CHANNEL_TYPES.text,
};

/**
 * The guild's images a body sets: icon, banner, splash and discovery splash as image data (null
 * removes one), each checked against its formats and the feature it needs (`GUILD_IMAGE_RULES`).
 */
function readImages(form: FormBody, guild: FakeGuild): Partial<Record<GuildImageField, StoredImage | null>> {
  const images: Partial<Record<GuildImageField, StoredImage | null>> = {};
  for (const field of GUILD_IMAGE_FIELDS) {
    const image = readImage(form, field, GUILD_IMAGE_RULES[field], guild);
    if (image !== undefined) images[field] = image;
  }
  return images;
}

function readSettings(form: FormBody, guild: FakeGuild): Partial<FakeGuildSettings> {
  const changes: Partial<FakeGuildSettings> = {};
  const name = form.string('name', { min: 2, max: 100 });
  if (name === null) form.fail('name', 'BASE_TYPE_REQUIRED', 'This field is required');
  if (name) changes.name = name;
  const description = form.string('description', { max: 120 });
  if (description !== undefined) changes.description = description;
  const integers = [
    ['verification_level', [0, 1, 2, 3, 4]],
    ['default_message_notifications', [0, 1]],
    ['explicit_content_filter', [0, 1, 2]],
    ['afk_timeout', AFK_TIMEOUTS],
  ] as const;
  for (const [field, oneOf] of integers) {
    const value = form.integer(field, { oneOf });
    if (value !== undefined && value !== null) changes[field] = value;
  }
  const flags = form.integer('system_channel_flags', { min: 0 });
  if (flags !== undefined && flags !== null) changes.system_channel_flags = flags;
  const locale = form.string('preferred_locale');
  if (locale && !LOCALE.test(locale)) form.fail('preferred_locale', 'BASE_TYPE_CHOICES', 'Invalid locale.');
  else if (locale) changes.preferred_locale = locale;
  for (const [field, type] of Object.entries(CHANNEL_SETTINGS) as [ChannelSetting, number][]) {
    const channelId = form.snowflake(field);
    if (channelId === undefined) continue;
    if (channelId !== null && !guild.channels.some((c) => c.id === channelId && c.type === type)) {
      form.fail(field, 'CHANNEL_TYPE_INVALID', `Must be a channel of type ${type} in this guild.`);
    } else {
      changes[field] = channelId;
    }
  }
  return changes;
}

export const guildRoutes: PlatformRoute[] = [
  {
    method: 'GET',
    path: '/guilds/:guild_id',
    handle: ({ params, actorId }, store) => {
      const guild = store.guild(params.guild_id, actorId);
      return ok(guildWire(guild, store.expressions.of(guild.id)));
    },
  },
  {
    method: 'PATCH',
    path: '/guilds/:guild_id',
    handle: ({ params, body, actorId }, store) => {
      const guild = store.guild(params.guild_id, actorId);
      new BotAuthority(guild, actorId).require(PermissionFlagsBits.ManageGuild);
      const form = FormBody.object(body);
      const changes = readSettings(form, guild);
      const images = readImages(form, guild);
      const ownerId = form.snowflake('owner_id');
      form.check();
      // Only the owner may hand the guild over.
      if (ownerId && ownerId !== guild.owner_id && guild.owner_id !== actorId) {
        throw platformError.missingPermissions();
      }
      const owner = ownerId ? { owner_id: store.member(guild, ownerId).user_id } : {};
      const watch = new GuildWatch(guild, ['settings']);
      Object.assign(guild, changes, owner);
      for (const [field, image] of Object.entries(images) as [GuildImageField, StoredImage | null][]) {
        guild[field] = image?.hash ?? null;
        store.images.set(field, guild.id, image);
      }
      return ok(guildWire(guild, store.expressions.of(guild.id)), watch.changes([guild.id]));
    },
  },
];
