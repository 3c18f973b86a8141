import { PermissionFlagsBits } from 'discord-api-types/v10';
import { BotAuthority } from '../bot-authority';
import { FormBody } from '../form-body';
import { GuildWatch } from '../guild-change';
import { platformError } from '../platform-error';
import type { FakeGuild } from '../platform-state';
import { checkOverwrites, readOverwrite } from './channel-form';
import { type PlatformRoute, noContent } from './platform-route';

/**
 * Overwrites are the platform's "Manage Permissions", which is the MANAGE_ROLES bit, held in the
 * channel (BotAuthority.requireOverwritable has the rest of the rule).
 */
function overwriteAuthority(guild: FakeGuild, actorId: string): BotAuthority {
  const bot = new BotAuthority(guild, actorId);
  bot.require(PermissionFlagsBits.ManageRoles);
  return bot;
}

export const overwriteRoutes: PlatformRoute[] = [
  {
    method: 'PUT',
    path: '/channels/:channel_id/permissions/:overwrite_id',
    handle: ({ params, body, actorId }, store) => {
      const { guild, channel } = store.channel(params.channel_id, actorId);
      const bot = overwriteAuthority(guild, actorId);
      const form = FormBody.object(body);
      const overwrite = { id: params.overwrite_id, ...readOverwrite(form) };
      form.check();
      checkOverwrites([overwrite], guild, store, bot, channel);
      const watch = new GuildWatch(guild, ['channels']);
      const index = channel.permission_overwrites.findIndex((existing) => existing.id === overwrite.id);
      if (index === -1) channel.permission_overwrites.push(overwrite);
      else channel.permission_overwrites[index] = overwrite;
      return noContent(watch.changes([channel.id]));
    },
  },
  {
    method: 'DELETE',
    path: '/channels/:channel_id/permissions/:overwrite_id',
    handle: ({ params, actorId }, store) => {
      const { guild, channel } = store.channel(params.channel_id, actorId);
      const bot = overwriteAuthority(guild, actorId);
      const index = channel.permission_overwrites.findIndex(
        (existing) => existing.id === params.overwrite_id,
      );
      if (index === -1) throw platformError.unknownOverwrite();
      // Removing an overwrite changes its bits as setting it does: the same rule holds (the docs
      // say nothing of removal; this is the stricter reading).
      bot.requireOverwritable(channel, [channel.permission_overwrites[index]]);
      const watch = new GuildWatch(guild, ['channels']);
      channel.permission_overwrites.splice(index, 1);
      return noContent(watch.changes([channel.id]));
    },
  },
];
