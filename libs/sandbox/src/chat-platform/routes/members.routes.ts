import { PermissionFlagsBits } from 'discord-api-types/v10';
import { BotAuthority } from '../bot-authority';
import { FormBody } from '../form-body';
import { GuildWatch } from '../guild-change';
import { platformError } from '../platform-error';
import type { FakeGuild, FakeMember, FakeRole } from '../platform-state';
import type { PlatformStore } from '../platform-store';
import { compareSnowflakes } from '../snowflake';
import { memberWire } from '../wire-format';
import { type PlatformRoute, type RouteRequest, type RouteResponse, noContent, ok } from './platform-route';

/**
 * The bot may give or take only roles below its highest; @everyone is implicit and a managed
 * role belongs to its integration.
 */
function assignableRole(guild: FakeGuild, store: PlatformStore, actorId: string, roleId: string): FakeRole {
  const bot = new BotAuthority(guild, actorId);
  bot.require(PermissionFlagsBits.ManageRoles);
  const role = store.role(guild, roleId);
  if (role.id === guild.id || role.managed) throw platformError.missingPermissions();
  bot.requireBelow(role.position);
  return role;
}

/** Gives or takes one role of a member (`PUT`/`DELETE .../members/:user_id/roles/:role_id`). */
function changeMemberRole(
  { params, actorId }: RouteRequest,
  store: PlatformStore,
  change: (roles: string[], roleId: string) => string[],
): RouteResponse {
  const guild = store.guild(params.guild_id, actorId);
  const member = store.member(guild, params.user_id);
  const role = assignableRole(guild, store, actorId, params.role_id);
  const watch = new GuildWatch(guild, [{ member: member.user_id }]);
  member.roles = change(member.roles, role.id);
  return noContent(watch.changes([member.user_id]));
}

/** A nickname is the member's own to change, or a moderator's who outranks them. */
function checkNicknameRights(guild: FakeGuild, actorId: string, member: FakeMember): void {
  const bot = new BotAuthority(guild, actorId);
  if (member.user_id === actorId) {
    bot.require(PermissionFlagsBits.ChangeNickname);
    return;
  }
  bot.require(PermissionFlagsBits.ManageNicknames);
  bot.requireOutranks(member);
}

/** The longest timeout the platform accepts: 28 days (resources/guild, Modify Guild Member). */
const MAX_TIMEOUT_MS = 28 * 24 * 3_600_000;

/**
 * `communication_disabled_until` of Modify Guild Member: needs MODERATE_MEMBERS and a member the
 * caller outranks; the owner and members with ADMINISTRATOR cannot be timed out (the platform
 * answers Missing Permissions); at most 28 days ahead. Null lifts the timeout.
 */
function checkTimeout(
  guild: FakeGuild,
  actorId: string,
  member: FakeMember,
  form: FormBody,
): string | null | undefined {
  if (!form.has('communication_disabled_until')) return undefined;
  const until = form.string('communication_disabled_until');
  if (until === undefined) return undefined;
  if (until !== null) {
    const ends = Date.parse(until);
    if (!Number.isFinite(ends)) {
      return form.fail('communication_disabled_until', 'DATE_TIME_TYPE_PARSE', 'Could not parse the date.');
    }
    if (ends - Date.now() > MAX_TIMEOUT_MS) {
      return form.fail(
        'communication_disabled_until',
        'BASE_TYPE_BAD_INT',
        'The timeout may be at most 28 days in the future.',
      );
    }
  }
  const bot = new BotAuthority(guild, actorId);
  bot.require(PermissionFlagsBits.ModerateMembers);
  bot.requireOutranks(member);
  const target = new BotAuthority(guild, member.user_id);
  if (target.holds(PermissionFlagsBits.Administrator)) throw platformError.missingPermissions();
  return until === null ? null : new Date(until).toISOString();
}

/** The platform's bounds for a page of the member list. */
const MAX_MEMBERS_PER_PAGE = 1000;

/**
 * The members whose user id is above `after` (a snowflake as sent, leading zeros and all), by user
 * id: the order the platform pages the member list in.
 */
function membersAfter(guild: FakeGuild, after: string, limit: number): FakeMember[] {
  const floor = BigInt(after).toString();
  return guild.members
    .filter((member) => compareSnowflakes(member.user_id, floor) > 0)
    .sort((a, b) => compareSnowflakes(a.user_id, b.user_id))
    .slice(0, limit);
}

export const memberRoutes: PlatformRoute[] = [
  {
    method: 'GET',
    path: '/guilds/:guild_id/members',
    handle: ({ params, query, actorId }, store) => {
      const guild = store.guild(params.guild_id, actorId);
      // GUILD_MEMBERS is a privileged intent: an application without it may not list members,
      // whatever its permissions, and the platform says so as Missing Access.
      if (store.withoutMembersIntent.has(actorId)) throw platformError.missingAccess();
      const form = FormBody.query(query, ['limit']);
      const limit = form.integer('limit', { min: 1, max: MAX_MEMBERS_PER_PAGE }) ?? 1;
      const after = form.snowflake('after') ?? '0';
      form.check();
      const page = membersAfter(guild, after, limit);
      return ok(page.map((member) => memberWire(member, store.user(member.user_id))));
    },
  },
  {
    method: 'GET',
    path: '/guilds/:guild_id/members/:user_id',
    handle: ({ params, actorId }, store) => {
      const guild = store.guild(params.guild_id, actorId);
      const member = store.member(guild, params.user_id);
      return ok(memberWire(member, store.user(member.user_id)));
    },
  },
  {
    method: 'PATCH',
    path: '/guilds/:guild_id/members/:user_id',
    handle: ({ params, body, actorId }, store) => {
      const guild = store.guild(params.guild_id, actorId);
      const member = store.member(guild, params.user_id);
      const form = FormBody.object(body);
      const requested = form.snowflakes('roles');
      const nick = form.string('nick', { max: 32 });
      const timeout = checkTimeout(guild, actorId, member, form);
      form.check();
      let roles: string[] | undefined;
      if (requested !== undefined) {
        const wanted = [...new Set(requested ?? [])].filter((id) => id !== guild.id);
        const changed = [
          ...wanted.filter((id) => !member.roles.includes(id)),
          ...member.roles.filter((id) => !wanted.includes(id)),
        ];
        for (const roleId of changed) assignableRole(guild, store, actorId, roleId);
        roles = wanted;
      }
      if (nick !== undefined && (nick || null) !== member.nick) checkNicknameRights(guild, actorId, member);
      const watch = new GuildWatch(guild, [{ member: member.user_id }]);
      if (roles) member.roles = roles;
      // An empty nickname removes it, as null does.
      if (nick !== undefined) member.nick = nick || null;
      if (timeout !== undefined) member.communication_disabled_until = timeout;
      return ok(memberWire(member, store.user(member.user_id)), watch.changes([member.user_id]));
    },
  },
  {
    method: 'DELETE',
    path: '/guilds/:guild_id/members/:user_id',
    handle: ({ params, actorId }, store) => {
      const guild = store.guild(params.guild_id, actorId);
      const member = store.member(guild, params.user_id);
      const bot = new BotAuthority(guild, actorId);
      bot.require(PermissionFlagsBits.KickMembers);
      bot.requireOutranks(member);
      const watch = new GuildWatch(guild, [{ member: member.user_id }]);
      guild.members = guild.members.filter((other) => other !== member);
      return noContent(watch.changes([member.user_id]));
    },
  },
  {
    method: 'PUT',
    path: '/guilds/:guild_id/members/:user_id/roles/:role_id',
    handle: (request, store) =>
      changeMemberRole(request, store, (roles, roleId) =>
        roles.includes(roleId) ? roles : [...roles, roleId],
      ),
  },
  {
    method: 'DELETE',
    path: '/guilds/:guild_id/members/:user_id/roles/:role_id',
    handle: (request, store) =>
      changeMemberRole(request, store, (roles, roleId) => roles.filter((id) => id !== roleId)),
  },
];
