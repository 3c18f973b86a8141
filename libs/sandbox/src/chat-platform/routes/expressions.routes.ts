import {
  AuditLogEvent,
  GatewayDispatchEvents,
  GatewayIntentBits,
  PermissionFlagsBits,
} from 'discord-api-types/v10';
import { BotAuthority } from '../bot-authority';
import type { GuildChange } from '../guild-change';
import { platformError } from '../platform-error';
import type { PlatformStore } from '../platform-store';
import { type PlatformRoute, type RouteRequest, noContent, ok } from './platform-route';

/**
 * Discord's "List Guild Emojis" / "Delete Guild Emoji" (resources/emoji) and "List Guild Stickers" /
 * "Delete Guild Sticker" (resources/sticker); the audit-log events EMOJI_DELETE and STICKER_DELETE
 * (resources/audit-log); GUILD_EMOJIS_UPDATE / GUILD_STICKERS_UPDATE carry the whole new list
 * (events/gateway-events). Listed by any member, deleted with Manage Expressions (the fake does
 * not record who uploaded one, so the narrower "Create Expressions for one's own" is not offered).
 * Each delete is an EMOJI_DELETE or STICKER_DELETE entry with the old values, and the guild's whole
 * new list on the gateway.
 */
function manager({ params, actorId }: RouteRequest, store: PlatformStore) {
  const guild = store.guild(params.guild_id, actorId);
  new BotAuthority(guild, actorId).require(PermissionFlagsBits.ManageGuildExpressions);
  return guild;
}

const { GuildExpressions: EXPRESSIONS_INTENT } = GatewayIntentBits;

export const expressionRoutes: PlatformRoute[] = [
  {
    method: 'GET',
    path: '/guilds/:guild_id/emojis',
    handle: ({ params, actorId }, store) => {
      const guild = store.guild(params.guild_id, actorId);
      return ok(structuredClone(store.expressions.emojis(guild.id)));
    },
  },
  {
    method: 'DELETE',
    path: '/guilds/:guild_id/emojis/:emoji_id',
    handle: (request, store) => {
      const guild = manager(request, store);
      const emojis = store.expressions.emojis(guild.id);
      const index = emojis.findIndex((emoji) => emoji.id === request.params.emoji_id);
      if (index < 0) throw platformError.unknownEmoji();
      const [emoji] = emojis.splice(index, 1);
      const change: GuildChange = {
        kind: 'entry',
        guildId: guild.id,
        entry: {
          target_id: emoji.id,
          action_type: AuditLogEvent.EmojiDelete,
          changes: [{ key: 'name', old_value: emoji.name }],
        },
        dispatch: {
          event: GatewayDispatchEvents.GuildEmojisUpdate,
          data: { guild_id: guild.id, emojis: structuredClone(emojis) },
          intent: EXPRESSIONS_INTENT,
        },
      };
      return noContent([change]);
    },
  },
  {
    method: 'GET',
    path: '/guilds/:guild_id/stickers',
    handle: ({ params, actorId }, store) => {
      const guild = store.guild(params.guild_id, actorId);
      return ok(structuredClone(store.expressions.stickers(guild.id)));
    },
  },
  {
    method: 'DELETE',
    path: '/guilds/:guild_id/stickers/:sticker_id',
    handle: (request, store) => {
      const guild = manager(request, store);
      const stickers = store.expressions.stickers(guild.id);
      const index = stickers.findIndex((sticker) => sticker.id === request.params.sticker_id);
      if (index < 0) throw platformError.unknownSticker();
      const [sticker] = stickers.splice(index, 1);
      const change: GuildChange = {
        kind: 'entry',
        guildId: guild.id,
        entry: {
          target_id: sticker.id,
          action_type: AuditLogEvent.StickerDelete,
          changes: (['name', 'tags', 'description', 'type', 'format_type', 'available', 'guild_id'] as const)
            .filter((key) => sticker[key] !== null)
            .map((key) => ({ key, old_value: sticker[key] })),
        },
        dispatch: {
          event: GatewayDispatchEvents.GuildStickersUpdate,
          data: { guild_id: guild.id, stickers: structuredClone(stickers) },
          intent: EXPRESSIONS_INTENT,
        },
      };
      return noContent([change]);
    },
  },
];
