import { PermissionFlagsBits } from 'discord-api-types/v10';
import { BotAuthority } from '../bot-authority';
import { FormBody } from '../form-body';
import { type GuildChange, GuildWatch } from '../guild-change';
import { platformError } from '../platform-error';
import { compareSnowflakes } from '../snowflake';
import { userWire } from '../wire-format';
import type { PlatformStore } from '../platform-store';
import { type PlatformRoute, type RouteRequest, noContent, ok } from './platform-route';

/** The platform deletes up to 7 days of the banned user's messages, if asked. */
const MAX_DELETE_MESSAGE_SECONDS = 7 * 24 * 3600;
const MAX_BANS_PER_PAGE = 1000;
/**
 * Discord's "Bulk Guild Ban" (resources/guild): BAN_MEMBERS and MANAGE_GUILD, at most 200
 * `user_ids`, answered with `banned_users` and `failed_users`; error 500000 when none was banned.
 */
const MAX_BULK_BAN_USERS = 200;

/** The guild's bans as `[user id, reason]`, by user id. */
function bansByUserId(bans: Map<string, string | null> | undefined): [string, string | null][] {
  return [...(bans ?? [])].sort(([a], [b]) => compareSnowflakes(a, b));
}

/** The guild's ban of `:user_id`, for a caller with Ban Members; Unknown Ban when there is none. */
function existingBan({ params, actorId }: RouteRequest, store: PlatformStore) {
  const guild = store.guild(params.guild_id, actorId);
  new BotAuthority(guild, actorId).require(PermissionFlagsBits.BanMembers);
  const bans = store.bans.get(guild.id);
  if (!bans?.has(params.user_id)) throw platformError.unknownBan();
  return { guild, bans, userId: params.user_id };
}

/**
 * Bans the users it can: not the owner, the caller, one already banned, or a member the caller
 * does not outrank. Each ban is its own MEMBER_BAN_ADD entry, as the platform writes them. None
 * banned: error 500000.
 */
function bulkBan({ params, body, actorId, auditLogReason }: RouteRequest, store: PlatformStore) {
  const guild = store.guild(params.guild_id, actorId);
  const bot = new BotAuthority(guild, actorId);
  bot.require(PermissionFlagsBits.BanMembers);
  bot.require(PermissionFlagsBits.ManageGuild);
  const form = FormBody.object(body ?? {});
  const userIds = form.snowflakes('user_ids');
  if (userIds === undefined || userIds === null)
    form.fail('user_ids', 'BASE_TYPE_REQUIRED', 'This field is required');
  else if (userIds.length > MAX_BULK_BAN_USERS)
    form.fail('user_ids', 'BASE_TYPE_MAX_LENGTH', `Must be ${MAX_BULK_BAN_USERS} or fewer in length.`);
  form.integer('delete_message_seconds', { min: 0, max: MAX_DELETE_MESSAGE_SECONDS });
  form.check();
  const bans = store.bans.get(guild.id) ?? new Map<string, string | null>();
  const banned: string[] = [];
  const failed: string[] = [];
  const changes: GuildChange[] = [];
  for (const userId of new Set(userIds ?? [])) {
    const member = guild.members.find((candidate) => candidate.user_id === userId);
    const bannable =
      store.users.has(userId) && userId !== actorId && !bans.has(userId) && (!member || bot.outranks(member));
    if (!bannable) {
      failed.push(userId);
      continue;
    }
    const watch = new GuildWatch(guild, [{ member: userId }]);
    guild.members = guild.members.filter((other) => other !== member);
    bans.set(userId, auditLogReason);
    banned.push(userId);
    changes.push({ kind: 'ban', guildId: guild.id, userId }, ...watch.changes([]));
  }
  if (banned.length === 0) throw platformError.failedToBanUsers();
  store.bans.set(guild.id, bans);
  return ok({ banned_users: banned, failed_users: failed }, changes);
}

export const banRoutes: PlatformRoute[] = [
  { method: 'POST', path: '/guilds/:guild_id/bulk-ban', handle: bulkBan },
  {
    method: 'GET',
    path: '/guilds/:guild_id/bans',
    handle: ({ params, query, actorId }, store) => {
      const guild = store.guild(params.guild_id, actorId);
      new BotAuthority(guild, actorId).require(PermissionFlagsBits.BanMembers);
      const form = FormBody.query(query, ['limit']);
      const limit = form.integer('limit', { min: 1, max: MAX_BANS_PER_PAGE }) ?? MAX_BANS_PER_PAGE;
      const before = form.snowflake('before');
      const after = form.snowflake('after');
      form.check();
      const matching = bansByUserId(store.bans.get(guild.id)).filter(
        ([userId]) =>
          (before == null || BigInt(userId) < BigInt(before)) &&
          (after == null || BigInt(userId) > BigInt(after)),
      );
      // By user id; `before` alone pages backwards and gives the page just before it.
      const page = before != null && after == null ? matching.slice(-limit) : matching.slice(0, limit);
      return ok(page.map(([userId, reason]) => ({ reason, user: userWire(store.user(userId)) })));
    },
  },
  {
    method: 'GET',
    path: '/guilds/:guild_id/bans/:user_id',
    handle: (request, store) => {
      const { bans, userId } = existingBan(request, store);
      return ok({ reason: bans.get(userId) ?? null, user: userWire(store.user(userId)) });
    },
  },
  {
    method: 'PUT',
    path: '/guilds/:guild_id/bans/:user_id',
    handle: ({ params, body, actorId, auditLogReason }, store) => {
      const guild = store.guild(params.guild_id, actorId);
      const bot = new BotAuthority(guild, actorId);
      bot.require(PermissionFlagsBits.BanMembers);
      const form = FormBody.object(body ?? {});
      form.integer('delete_message_seconds', { min: 0, max: MAX_DELETE_MESSAGE_SECONDS });
      form.check();
      const user = store.user(params.user_id);
      const member = guild.members.find((candidate) => candidate.user_id === user.id);
      if (member) bot.requireOutranks(member);
      const bans = store.bans.get(guild.id) ?? new Map<string, string | null>();
      // Banning a banned user changes nothing.
      if (bans.has(user.id)) return noContent();
      const watch = new GuildWatch(guild, [{ member: user.id }]);
      guild.members = guild.members.filter((other) => other !== member);
      bans.set(user.id, auditLogReason);
      store.bans.set(guild.id, bans);
      // The member leaves as part of the ban, which is the one audit-log entry.
      return noContent([{ kind: 'ban', guildId: guild.id, userId: user.id }, ...watch.changes([])]);
    },
  },
  {
    method: 'DELETE',
    path: '/guilds/:guild_id/bans/:user_id',
    handle: (request, store) => {
      const { guild, bans, userId } = existingBan(request, store);
      bans.delete(userId);
      // The user may join again; they are not made a member.
      return noContent([{ kind: 'unban', guildId: guild.id, userId }]);
    },
  },
];
