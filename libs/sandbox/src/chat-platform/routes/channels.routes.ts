import { PermissionFlagsBits } from 'discord-api-types/v10';
import { BotAuthority } from '../bot-authority';
import { type TypeSpecificField, channelHasField, fitFieldsToType } from '../channel-fields';
import { FormBody } from '../form-body';
import { GuildWatch } from '../guild-change';
import { platformError } from '../platform-error';
import {
  CHANNEL_TYPES,
  type FakeChannel,
  type FakeGuild,
  GUILD_CHANNEL_TYPES,
  MAX_GUILD_CHANNELS,
} from '../platform-state';
import type { PlatformStore } from '../platform-store';
import { channelWire, dmChannelWire } from '../wire-format';
import {
  type ChannelFields,
  checkGuildLimits,
  checkOverwrites,
  checkParent,
  readChannelFields,
} from './channel-form';
import { readForumFields } from './forum-form';
import { type PlatformRoute, created, noContent, ok } from './platform-route';

const TYPE_CHANGES: readonly number[] = [CHANNEL_TYPES.text, CHANNEL_TYPES.announcement];

/** Every channel write needs MANAGE_CHANNELS. */
function channelAuthority(guild: FakeGuild, actorId: string): BotAuthority {
  const bot = new BotAuthority(guild, actorId);
  bot.require(PermissionFlagsBits.ManageChannels);
  return bot;
}

/**
 * Setting overwrites also needs MANAGE_ROLES, for existing role targets and bits the bot may set
 * (see BotAuthority.requireOverwritable). An edit that sends the list changes the overwrites even
 * when it is empty (it removes them all), and each entry it sends or leaves out is checked; a new
 * channel with an empty list has none to set.
 */
function checkOverwriteRights(
  bot: BotAuthority,
  guild: FakeGuild,
  store: PlatformStore,
  fields: ChannelFields,
  channel?: FakeChannel,
) {
  const overwrites = fields.permission_overwrites;
  if (overwrites === undefined || (!channel && overwrites.length === 0)) return;
  bot.require(PermissionFlagsBits.ManageRoles);
  const sent = new Set(overwrites.map((overwrite) => overwrite.id));
  const removed = (channel?.permission_overwrites ?? []).filter((overwrite) => !sent.has(overwrite.id));
  checkOverwrites([...overwrites, ...removed], guild, store, bot, channel);
}

/**
 * Media channels are for Community guilds. The API docs do not say so (they say only that the type
 * is "still in active development"); Discord's Help Center does, and the fake refuses a media
 * channel elsewhere with 400 Invalid Form Body on `type` (GUILD_FEATURE_REQUIRED, a code of the
 * fake's own, as for guild images).
 */
const COMMUNITY = 'COMMUNITY';

function checkMediaAllowed(form: FormBody, guild: FakeGuild, type: number): void {
  if (type === CHANNEL_TYPES.media && !guild.features.includes(COMMUNITY)) {
    form.fail('type', 'GUILD_FEATURE_REQUIRED', `This guild needs the ${COMMUNITY} feature for this.`);
  }
  form.check();
}

/** A new channel goes after its siblings (same parent, or among the categories). */
function nextPosition(guild: FakeGuild, type: number, parentId: string | null): number {
  const siblings = guild.channels.filter((channel) =>
    type === CHANNEL_TYPES.category
      ? channel.type === CHANNEL_TYPES.category
      : channel.type !== CHANNEL_TYPES.category && channel.parent_id === parentId,
  );
  return siblings.length === 0 ? 0 : Math.max(...siblings.map((channel) => channel.position)) + 1;
}

/** Applies an edit; fields the channel's type does not have are ignored, as on the platform. */
function applyFields(channel: FakeChannel, fields: ChannelFields): void {
  const {
    topic,
    rate_limit_per_user,
    bitrate,
    user_limit,
    rtc_region,
    video_quality_mode,
    default_auto_archive_duration,
    flags,
    ...common
  } = fields;
  Object.assign(channel, common);
  fitFieldsToType(channel);
  const has = (field: TypeSpecificField) => channelHasField(channel.type, field);
  const typeFields = { rtc_region, video_quality_mode, default_auto_archive_duration, flags };
  for (const [field, value] of Object.entries(typeFields)) {
    if (value !== undefined && has(field as TypeSpecificField)) Object.assign(channel, { [field]: value });
  }
  if (topic !== undefined && has('topic')) channel.topic = topic;
  if (rate_limit_per_user !== undefined && has('rate_limit_per_user')) {
    channel.rate_limit_per_user = rate_limit_per_user;
  }
  if (bitrate !== undefined && has('bitrate')) channel.bitrate = bitrate;
  if (user_limit !== undefined && has('user_limit')) channel.user_limit = user_limit;
}

export const channelRoutes: PlatformRoute[] = [
  {
    method: 'GET',
    path: '/guilds/:guild_id/channels',
    handle: ({ params, actorId }, store) =>
      ok(store.guild(params.guild_id, actorId).channels.map(channelWire)),
  },
  {
    method: 'POST',
    path: '/guilds/:guild_id/channels',
    handle: ({ params, body, actorId }, store) => {
      const guild = store.guild(params.guild_id, actorId);
      const bot = channelAuthority(guild, actorId);
      const form = FormBody.object(body);
      if (!form.has('name')) form.fail('name', 'BASE_TYPE_REQUIRED', 'This field is required');
      const fields = readChannelFields(form, GUILD_CHANNEL_TYPES, true);
      const type = fields.type ?? CHANNEL_TYPES.text;
      const parentId = fields.parent_id ?? null;
      checkMediaAllowed(form, guild, type);
      checkParent(form, guild, type, parentId);
      checkGuildLimits(form, guild, type, fields);
      const forum = readForumFields(form, store, guild, type);
      checkOverwriteRights(bot, guild, store, fields);
      if (guild.channels.length >= MAX_GUILD_CHANNELS) throw platformError.maxChannels();
      const channel: FakeChannel = {
        id: store.ids.next(),
        type,
        guild_id: guild.id,
        name: fields.name!,
        position: nextPosition(guild, type, parentId),
        parent_id: parentId,
        topic: null,
        nsfw: false,
        rate_limit_per_user: null,
        bitrate: null,
        user_limit: null,
        permission_overwrites: [],
      };
      const watch = new GuildWatch(guild, ['channels']);
      applyFields(channel, fields);
      Object.assign(channel, forum);
      guild.channels.push(channel);
      return created(channelWire(channel), watch.changes([channel.id]));
    },
  },
  {
    method: 'PATCH',
    path: '/guilds/:guild_id/channels',
    handle: ({ params, body, actorId }, store) => {
      const guild = store.guild(params.guild_id, actorId);
      channelAuthority(guild, actorId);
      const items = FormBody.list(body);
      const requested = items.map((item) => ({
        form: item,
        id: item.snowflake('id', { required: true }),
        position: item.integer('position', { min: 0 }),
        parentId: item.snowflake('parent_id'),
      }));
      items[0]?.check();
      const changes = requested.map(({ form, id, position, parentId }) => {
        const channel = guild.channels.find((candidate) => candidate.id === id);
        if (!channel) throw platformError.unknownChannel();
        if (parentId !== undefined) checkParent(form, guild, channel.type, parentId);
        return { channel, position, parentId };
      });
      // Checked in full first, so a bad entry leaves every channel where it was.
      const watch = new GuildWatch(guild, ['channels']);
      for (const { channel, position, parentId } of changes) {
        if (position !== undefined && position !== null) channel.position = position;
        if (parentId !== undefined) channel.parent_id = parentId;
      }
      return noContent(watch.changes(changes.map(({ channel }) => channel.id)));
    },
  },
  {
    method: 'GET',
    path: '/channels/:channel_id',
    handle: ({ params, actorId }, store) => {
      const recipientId = store.dmRecipient(params.channel_id);
      if (recipientId !== undefined) return ok(dmChannelWire(params.channel_id, store.user(recipientId)));
      return ok(channelWire(store.channel(params.channel_id, actorId).channel));
    },
  },
  {
    method: 'PATCH',
    path: '/channels/:channel_id',
    handle: ({ params, body, actorId }, store) => {
      const { guild, channel } = store.channel(params.channel_id, actorId);
      const bot = channelAuthority(guild, actorId);
      const form = FormBody.object(body);
      const fields = readChannelFields(
        form,
        TYPE_CHANGES.includes(channel.type) ? TYPE_CHANGES : [channel.type],
      );
      if (fields.parent_id !== undefined) {
        if (fields.parent_id === channel.id)
          form.fail('parent_id', 'CHANNEL_PARENT_INVALID', 'Invalid parent.');
        checkParent(form, guild, channel.type, fields.parent_id);
      }
      checkGuildLimits(form, guild, fields.type ?? channel.type, fields);
      const forum = readForumFields(form, store, guild, fields.type ?? channel.type, channel);
      checkOverwriteRights(bot, guild, store, fields, channel);
      const watch = new GuildWatch(guild, ['channels']);
      applyFields(channel, fields);
      Object.assign(channel, forum);
      return ok(channelWire(channel), watch.changes([channel.id]));
    },
  },
  {
    method: 'DELETE',
    path: '/channels/:channel_id',
    handle: ({ params, actorId }, store) => {
      const { guild, channel } = store.channel(params.channel_id, actorId);
      channelAuthority(guild, actorId);
      const watch = new GuildWatch(guild, ['channels', 'settings']);
      guild.channels = guild.channels.filter((other) => other !== channel);
      // The platform keeps a deleted category's channels, without a parent.
      for (const child of guild.channels) if (child.parent_id === channel.id) child.parent_id = null;
      for (const setting of [
        'afk_channel_id',
        'system_channel_id',
        'rules_channel_id',
        'public_updates_channel_id',
      ] as const) {
        if (guild[setting] === channel.id) guild[setting] = null;
      }
      // The platform answers a channel delete with the deleted channel, not 204.
      return ok(channelWire(channel), watch.changes([channel.id]));
    },
  },
];
