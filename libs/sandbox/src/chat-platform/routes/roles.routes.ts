import { PermissionFlagsBits } from 'discord-api-types/v10';
import { BotAuthority } from '../bot-authority';
import { FormBody } from '../form-body';
import { GuildWatch } from '../guild-change';
import { platformError } from '../platform-error';
import { type FakeGuild, type FakeRole, MAX_GUILD_ROLES } from '../platform-state';
import { roleWire } from '../wire-format';
import { type PlatformRoute, noContent, ok } from './platform-route';

const MAX_COLOR = 0xffffff;

type RoleFields = Partial<
  Pick<FakeRole, 'name' | 'permissions' | 'color' | 'hoist' | 'icon' | 'unicode_emoji' | 'mentionable'>
>;

/** The role fields of a create or edit; an explicit null means the default, as on the platform. */
function readRoleFields(form: FormBody, guild: FakeGuild): RoleFields {
  const fields: RoleFields = {};
  const name = form.string('name', { max: 100 });
  if (name !== undefined) fields.name = name ?? 'new role';
  const permissions = form.permissions('permissions');
  if (permissions !== undefined) fields.permissions = permissions ?? everyone(guild).permissions;
  const color = form.integer('color', { min: 0, max: MAX_COLOR });
  if (color !== undefined) fields.color = color ?? 0;
  for (const flag of ['hoist', 'mentionable'] as const) {
    const value = form.boolean(flag);
    if (value !== undefined) fields[flag] = value ?? false;
  }
  for (const text of ['icon', 'unicode_emoji'] as const) {
    const value = form.string(text);
    if (value !== undefined) fields[text] = value;
  }
  form.check();
  return fields;
}

function everyone(guild: FakeGuild): FakeRole {
  return guild.roles.find((role) => role.id === guild.id)!;
}

/** Positions 1..n without gaps above @everyone, in the given order. */
function renumber(guild: FakeGuild, ordered: FakeRole[]): void {
  ordered.forEach((role, index) => (role.position = index + 1));
  guild.roles.sort((a, b) => a.position - b.position);
}

function rolesAboveEveryone(guild: FakeGuild): FakeRole[] {
  return guild.roles.filter((role) => role.id !== guild.id).sort((a, b) => a.position - b.position);
}

function authority(guild: FakeGuild, actorId: string): BotAuthority {
  const bot = new BotAuthority(guild, actorId);
  bot.require(PermissionFlagsBits.ManageRoles);
  return bot;
}

/**
 * Moves the listed roles to their positions; the others keep their order around them, and
 * positions end up 1..n again (the platform's answer to a partial reorder).
 */
function moveRoles(guild: FakeGuild, moves: { role: FakeRole; position: number }[]): void {
  const moving = new Set(moves.map((move) => move.role.id));
  const ordered = rolesAboveEveryone(guild).filter((role) => !moving.has(role.id));
  for (const move of [...moves].sort((a, b) => a.position - b.position)) {
    ordered.splice(Math.min(Math.max(move.position - 1, 0), ordered.length), 0, move.role);
  }
  renumber(guild, ordered);
}

export const roleRoutes: PlatformRoute[] = [
  {
    method: 'GET',
    path: '/guilds/:guild_id/roles',
    handle: ({ params, actorId }, store) => ok(store.guild(params.guild_id, actorId).roles.map(roleWire)),
  },
  {
    method: 'POST',
    path: '/guilds/:guild_id/roles',
    handle: ({ params, body, actorId }, store) => {
      const guild = store.guild(params.guild_id, actorId);
      const bot = authority(guild, actorId);
      const fields = readRoleFields(FormBody.object(body ?? {}), guild);
      if (guild.roles.length >= MAX_GUILD_ROLES) throw platformError.maxRoles();
      const role: FakeRole = {
        id: store.ids.next(),
        name: 'new role',
        color: 0,
        hoist: false,
        icon: null,
        unicode_emoji: null,
        position: 1,
        permissions: everyone(guild).permissions,
        managed: false,
        mentionable: false,
        flags: 0,
        ...fields,
      };
      bot.requireGrantable(BigInt(role.permissions));
      const watch = new GuildWatch(guild, ['roles']);
      // A new role starts at the bottom, just above @everyone.
      guild.roles.push(role);
      renumber(guild, [role, ...rolesAboveEveryone(guild).filter((other) => other !== role)]);
      return ok(roleWire(role), watch.changes([role.id]));
    },
  },
  {
    method: 'PATCH',
    path: '/guilds/:guild_id/roles',
    handle: ({ params, body, actorId }, store) => {
      const guild = store.guild(params.guild_id, actorId);
      const bot = authority(guild, actorId);
      const items = FormBody.list(body);
      const requested = items.map((item) => ({
        id: item.snowflake('id', { required: true }),
        position: item.integer('position', { min: 1 }),
      }));
      items[0]?.check();
      const moves: { role: FakeRole; position: number }[] = [];
      for (const { id, position } of requested) {
        const role = store.role(guild, id!);
        if (role.id === guild.id) throw platformError.missingPermissions();
        bot.requireBelow(role.position);
        if (position === undefined || position === null) continue;
        bot.requireBelow(position);
        moves.push({ role, position });
      }
      const watch = new GuildWatch(guild, ['roles']);
      moveRoles(guild, moves);
      return ok(guild.roles.map(roleWire), watch.changes(moves.map(({ role }) => role.id)));
    },
  },
  {
    method: 'PATCH',
    path: '/guilds/:guild_id/roles/:role_id',
    handle: ({ params, body, actorId }, store) => {
      const guild = store.guild(params.guild_id, actorId);
      const bot = authority(guild, actorId);
      const role = store.role(guild, params.role_id);
      bot.requireBelow(role.position);
      const fields = readRoleFields(FormBody.object(body ?? {}), guild);
      if (fields.permissions !== undefined) {
        bot.requireGrantable(BigInt(fields.permissions) & ~BigInt(role.permissions));
      }
      const watch = new GuildWatch(guild, ['roles']);
      Object.assign(role, fields);
      return ok(roleWire(role), watch.changes([role.id]));
    },
  },
  {
    method: 'DELETE',
    path: '/guilds/:guild_id/roles/:role_id',
    handle: ({ params, actorId }, store) => {
      const guild = store.guild(params.guild_id, actorId);
      const bot = authority(guild, actorId);
      const role = store.role(guild, params.role_id);
      if (role.id === guild.id || role.managed) throw platformError.missingPermissions();
      bot.requireBelow(role.position);
      // Members simply stop holding the role: the platform sends no member updates for that.
      const watch = new GuildWatch(guild, ['roles', 'channels']);
      guild.roles = guild.roles.filter((other) => other !== role);
      renumber(guild, rolesAboveEveryone(guild));
      for (const member of guild.members) member.roles = member.roles.filter((id) => id !== role.id);
      for (const channel of guild.channels) {
        channel.permission_overwrites = channel.permission_overwrites.filter((o) => o.id !== role.id);
      }
      return noContent(watch.changes([role.id]));
    },
  },
];
