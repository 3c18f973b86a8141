import { PermissionFlagsBits } from 'discord-api-types/v10';
import { BotAuthority } from '../bot-authority';
import { FormBody } from '../form-body';
import { platformError } from '../platform-error';
import type { FakeGuild, FakeRole } from '../platform-state';
import type { PlatformStore } from '../platform-store';
import { memberWire } from '../wire-format';
import { type PlatformRoute, noContent, ok } from './platform-route';

/**
 * The bot may give or take only roles below its highest; @everyone is implicit and a managed
 * role belongs to its integration.
 */
function assignableRole(guild: FakeGuild, store: PlatformStore, roleId: string): FakeRole {
  const bot = new BotAuthority(guild, store.bot.id);
  bot.require(PermissionFlagsBits.ManageRoles);
  const role = store.role(guild, roleId);
  if (role.id === guild.id || role.managed) throw platformError.missingPermissions();
  bot.requireBelow(role.position);
  return role;
}

export const memberRoutes: PlatformRoute[] = [
  {
    method: 'GET',
    path: '/guilds/:guild_id/members/:user_id',
    handle: ({ params }, store) => {
      const guild = store.guild(params.guild_id);
      const member = store.member(guild, params.user_id);
      return ok(memberWire(member, store.user(member.user_id)));
    },
  },
  {
    method: 'PATCH',
    path: '/guilds/:guild_id/members/:user_id',
    handle: ({ params, body }, store) => {
      const guild = store.guild(params.guild_id);
      const member = store.member(guild, params.user_id);
      const form = FormBody.object(body);
      const requested = form.snowflakes('roles');
      form.check();
      if (requested !== undefined) {
        const wanted = [...new Set(requested ?? [])].filter((id) => id !== guild.id);
        const changed = [
          ...wanted.filter((id) => !member.roles.includes(id)),
          ...member.roles.filter((id) => !wanted.includes(id)),
        ];
        for (const roleId of changed) assignableRole(guild, store, roleId);
        member.roles = wanted;
      }
      return ok(memberWire(member, store.user(member.user_id)));
    },
  },
  {
    method: 'PUT',
    path: '/guilds/:guild_id/members/:user_id/roles/:role_id',
    handle: ({ params }, store) => {
      const guild = store.guild(params.guild_id);
      const member = store.member(guild, params.user_id);
      const role = assignableRole(guild, store, params.role_id);
      if (!member.roles.includes(role.id)) member.roles.push(role.id);
      return noContent();
    },
  },
  {
    method: 'DELETE',
    path: '/guilds/:guild_id/members/:user_id/roles/:role_id',
    handle: ({ params }, store) => {
      const guild = store.guild(params.guild_id);
      const member = store.member(guild, params.user_id);
      const role = assignableRole(guild, store, params.role_id);
      member.roles = member.roles.filter((id) => id !== role.id);
      return noContent();
    },
  },
];
