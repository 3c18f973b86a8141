import { PermissionFlagsBits } from 'discord-api-types/v10';
import { BotAuthority } from '../bot-authority';
import { FormBody } from '../form-body';
import { GuildWatch } from '../guild-change';
import { platformError } from '../platform-error';
import { CHANNEL_TYPES, type FakeGuild } from '../platform-state';
import type { PlatformStore } from '../platform-store';
import {
  type FakeWelcomeChannel,
  type FakeWelcomeScreen,
  MAX_WELCOME_CHANNELS,
  WELCOME_SCREEN_ENABLED,
  welcomeScreenWire,
} from '../welcome-flow';
import { type PlatformRoute, ok } from './platform-route';

/**
 * Discord's "Get Guild Welcome Screen" and "Modify Guild Welcome Screen" (resources/guild). Reading
 * a welcome screen that is not enabled needs MANAGE_GUILD, modifying one always does; `enabled`
 * is the guild's WELCOME_SCREEN_ENABLED feature, so turning it on or off is a GUILD_UPDATE (audit
 * log and gateway: "May fire a Guild Update Gateway event"). Up to 5 welcome channels.
 *
 * Undocumented, the stricter reading: the welcome screen is "the welcome screen of a Community
 * guild", so a guild without COMMUNITY has none to read or modify (Unknown Guild Welcome Screen,
 * 10069), and neither has a COMMUNITY guild that never set one up until its first modify; a
 * welcome channel is a guild channel that is not a category, and a custom emoji is one of the
 * guild's. The lengths are the OpenAPI document's: a channel's description 1-50 characters, the
 * screen's at most 140.
 */

const { ManageGuild: MANAGE_GUILD } = PermissionFlagsBits;

function readWelcomeChannel(form: FormBody, guild: FakeGuild, store: PlatformStore) {
  const channelId = form.snowflake('channel_id', { required: true });
  const channel = guild.channels.find((candidate) => candidate.id === channelId);
  if (channelId && (!channel || channel.type === CHANNEL_TYPES.category)) {
    form.fail('channel_id', 'CHANNEL_TYPE_INVALID', 'Must be a channel of this guild.');
  }
  const description = form.string('description', { required: true, min: 1, max: 50 });
  const emojiId = form.snowflake('emoji_id');
  if (emojiId && !store.expressions.emojis(guild.id).some((emoji) => emoji.id === emojiId)) {
    form.fail('emoji_id', 'EMOJI_INVALID', 'Must be an emoji of this guild.');
  }
  const emojiName = form.string('emoji_name');
  const welcome: FakeWelcomeChannel = {
    channel_id: channelId ?? '',
    description: description ?? '',
    emoji_id: emojiId ?? null,
    emoji_name: emojiName ?? null,
  };
  return welcome;
}

function requireCommunity(guild: FakeGuild): void {
  if (!guild.features.includes('COMMUNITY')) throw platformError.unknownWelcomeScreen();
}

export const welcomeScreenRoutes: PlatformRoute[] = [
  {
    method: 'GET',
    path: '/guilds/:guild_id/welcome-screen',
    handle: ({ params, actorId }, store) => {
      const guild = store.guild(params.guild_id, actorId);
      if (!guild.features.includes(WELCOME_SCREEN_ENABLED)) {
        new BotAuthority(guild, actorId).require(MANAGE_GUILD);
      }
      requireCommunity(guild);
      const screen = store.welcomeFlows.welcomeScreen(guild.id);
      if (!screen) throw platformError.unknownWelcomeScreen();
      return ok(welcomeScreenWire(screen));
    },
  },
  {
    method: 'PATCH',
    path: '/guilds/:guild_id/welcome-screen',
    handle: ({ params, body, actorId }, store) => {
      const guild = store.guild(params.guild_id, actorId);
      new BotAuthority(guild, actorId).require(MANAGE_GUILD);
      requireCommunity(guild);
      const form = FormBody.object(body ?? {});
      const enabled = form.boolean('enabled');
      const description = form.string('description', { max: 140 });
      const channelForms = form.objects('welcome_channels', { max: MAX_WELCOME_CHANNELS });
      // Null clears the list, as an empty one does.
      const channels =
        channelForms && channelForms.map((channel) => readWelcomeChannel(channel, guild, store));
      form.check();
      const current = store.welcomeFlows.welcomeScreen(guild.id);
      const screen: FakeWelcomeScreen = {
        description: description !== undefined ? description : (current?.description ?? null),
        welcome_channels: channels !== undefined ? (channels ?? []) : (current?.welcome_channels ?? []),
      };
      store.welcomeFlows.setWelcomeScreen(guild.id, screen);
      const watch = new GuildWatch(guild, ['settings']);
      if (typeof enabled === 'boolean') {
        const others = guild.features.filter((feature) => feature !== WELCOME_SCREEN_ENABLED);
        guild.features = enabled ? [...others, WELCOME_SCREEN_ENABLED] : others;
      }
      return ok(welcomeScreenWire(screen), watch.changes([guild.id]));
    },
  },
];
