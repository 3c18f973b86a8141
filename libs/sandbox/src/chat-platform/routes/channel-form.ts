import { BotAuthority } from '../bot-authority';
import { FormBody } from '../form-body';
import {
  channelHasField,
  maxBitrateIn,
  maxTopicOf,
  SETTABLE_FLAGS_BY_TYPE,
  VOICE_REGIONS,
} from '../channel-fields';
import { CHANNEL_TYPES, type FakeChannel, type FakeGuild, type FakeOverwrite } from '../platform-state';
import type { PlatformStore } from '../platform-store';

const MAX_OVERWRITES = 100;

/** What a create or edit body may set: every field of a channel but its ids. */
export type ChannelFields = Partial<Omit<FakeChannel, 'id' | 'guild_id'>>;

/** One overwrite's body: `type` is required, absent or null bit sets are empty. */
export function readOverwrite(form: FormBody): Omit<FakeOverwrite, 'id'> {
  const type = form.integer('type', { required: true, oneOf: [0, 1] });
  return {
    type: type === 1 ? 1 : 0,
    allow: form.permissions('allow') ?? '0',
    deny: form.permissions('deny') ?? '0',
  };
}

/**
 * The channel fields of a create (`creating`) or edit body. `allowedTypes` are the types the request
 * may set (any guild type at creation; only text <-> announcement on an edit).
 */
export function readChannelFields(
  form: FormBody,
  allowedTypes: readonly number[],
  creating = false,
): ChannelFields {
  const fields: ChannelFields = {};
  const name = form.string('name', { min: 1, max: 100 });
  if (name === null) form.fail('name', 'BASE_TYPE_REQUIRED', 'This field is required');
  if (name) fields.name = name;
  const type = form.integer('type', { oneOf: allowedTypes });
  if (type !== undefined && type !== null) fields.type = type;
  const position = form.integer('position', { min: 0 });
  if (position !== undefined && position !== null) fields.position = position;
  const parentId = form.snowflake('parent_id');
  if (parentId !== undefined) fields.parent_id = parentId;
  const topic = form.string('topic', { max: 4096 });
  if (topic !== undefined) fields.topic = topic;
  const nsfw = form.boolean('nsfw');
  if (nsfw !== undefined) fields.nsfw = nsfw ?? false;
  const slowMode = form.integer('rate_limit_per_user', { min: 0, max: 21_600 });
  if (slowMode !== undefined) fields.rate_limit_per_user = slowMode ?? 0;
  const bitrate = form.integer('bitrate', { min: 8_000, max: 384_000 });
  if (bitrate !== undefined && bitrate !== null) fields.bitrate = bitrate;
  const userLimit = form.integer('user_limit', { min: 0, max: 10_000 });
  if (userLimit !== undefined) fields.user_limit = userLimit ?? 0;
  const region = form.string('rtc_region', { oneOf: VOICE_REGIONS });
  if (region !== undefined) fields.rtc_region = region;
  const quality = form.integer('video_quality_mode', { oneOf: [1, 2] });
  if (quality !== undefined) fields.video_quality_mode = (quality ?? 1) as 1 | 2;
  const archive = form.integer('default_auto_archive_duration', { oneOf: [60, 1440, 4320, 10080] });
  if (archive !== undefined && archive !== null)
    fields.default_auto_archive_duration = archive as 60 | 1440 | 4320 | 10080;
  // Create Guild Channel has no `flags` (resources/guild; Discord's OpenAPI document agrees): the
  // platform ignores fields it does not take, so a new channel starts without them.
  const flags = creating ? undefined : form.integer('flags', { min: 0 });
  if (flags !== undefined) fields.flags = flags ?? 0;
  const overwrites = form.objects('permission_overwrites', { max: MAX_OVERWRITES });
  if (overwrites !== undefined) {
    fields.permission_overwrites = (overwrites ?? []).map((item) => ({
      id: item.snowflake('id', { required: true }) ?? '',
      ...readOverwrite(item),
    }));
  }
  form.check();
  return fields;
}

/**
 * The platform's rules for a channel's parent: an existing category of the same guild, and a
 * category has none.
 */
export function checkParent(form: FormBody, guild: FakeGuild, type: number, parentId: string | null): void {
  if (parentId === null) return;
  if (type === CHANNEL_TYPES.category) {
    form.fail('parent_id', 'CHANNEL_PARENT_INVALID', 'Categories cannot have subcategories.');
  } else if (!guild.channels.some((c) => c.id === parentId && c.type === CHANNEL_TYPES.category)) {
    form.fail('parent_id', 'CHANNEL_PARENT_INVALID', 'Category does not exist.');
  }
  form.check();
}

/**
 * The limits that depend on the guild and the channel's type (after the write): a bitrate above the
 * guild's boost level allows, or a topic longer than the type takes, is refused with 400 50035 as
 * the platform refuses it. Fields the type does not have are ignored, as the platform ignores them.
 */
export function checkGuildLimits(
  form: FormBody,
  guild: FakeGuild,
  type: number,
  fields: ChannelFields,
): void {
  const maxBitrate = maxBitrateIn(guild, type);
  if (typeof fields.bitrate === 'number' && channelHasField(type, 'bitrate') && fields.bitrate > maxBitrate) {
    form.fail('bitrate', 'NUMBER_TYPE_MAX', `Int value should be less than or equal to ${maxBitrate}.`);
  }
  // Undocumented what the platform does with a flag the type does not take: refused, the stricter.
  const settable = SETTABLE_FLAGS_BY_TYPE[type] ?? 0;
  if (
    typeof fields.flags === 'number' &&
    channelHasField(type, 'flags') &&
    (fields.flags & ~settable) !== 0
  ) {
    form.fail('flags', 'CHANNEL_FLAGS_INVALID', 'Invalid channel flags.');
  }
  const maxTopic = maxTopicOf(type);
  if (typeof fields.topic === 'string' && channelHasField(type, 'topic') && fields.topic.length > maxTopic) {
    form.fail('topic', 'BASE_TYPE_BAD_LENGTH', `Must be between 0 and ${maxTopic} in length.`);
  }
  form.check();
}

/**
 * A role overwrite's role must exist; a member overwrite may name any user, in the guild or not
 * (the platform keeps a member's overwrite after they leave, and accepts one for someone who has
 * left). The bot must be allowed to set each of them in the channel (`channel` undefined: one
 * being created), and, for a whole list, to remove those the list leaves out.
 */
export function checkOverwrites(
  overwrites: FakeOverwrite[],
  guild: FakeGuild,
  store: PlatformStore,
  bot: BotAuthority,
  channel?: FakeChannel,
): void {
  for (const overwrite of overwrites) {
    if (overwrite.type === 0) store.role(guild, overwrite.id);
  }
  bot.requireOverwritable(channel, overwrites);
}
