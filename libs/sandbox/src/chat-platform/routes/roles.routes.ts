import { PermissionFlagsBits } from 'discord-api-types/v10';
import { BotAuthority } from '../bot-authority';
import { FormBody } from '../form-body';
import { GuildWatch } from '../guild-change';
import { platformError } from '../platform-error';
import type { RoleColors } from '@lib/chat-platform';
import { type FakeGuild, type FakeRole, MAX_GUILD_ROLES } from '../platform-state';
import type { PlatformStore } from '../platform-store';
import { roleWire } from '../wire-format';
import { ROLE_ICON_RULE, type StoredImage, readImage } from './image-form';
import { type PlatformRoute, noContent, ok } from './platform-route';

const MAX_COLOR = 0xffffff;
/** Gradient and holographic colours need this guild feature (topics/permissions, Role Colors Object). */
const ENHANCED_ROLE_COLORS = 'ENHANCED_ROLE_COLORS';
/** The only holographic style the platform accepts: "the API enforces" these values. */
const HOLOGRAPHIC = { primary_color: 11_127_295, secondary_color: 16_759_788, tertiary_color: 16_761_760 };

type RoleFields = Partial<
  Pick<FakeRole, 'name' | 'permissions' | 'color' | 'hoist' | 'unicode_emoji' | 'mentionable'>
> & {
  /** The colours the body sets; absent ones keep the role's. */
  colors?: Partial<RoleColors>;
  /** The icon the body uploads (null removes it); stored once the role has its id. */
  icon?: StoredImage | null;
};

/** Role icons and unicode emojis need this guild feature (topics/permissions, Create Guild Role). */
const ROLE_ICONS = 'ROLE_ICONS';

/** The role fields of a create or edit; an explicit null means the default, as on the platform. */
function readRoleFields(form: FormBody, guild: FakeGuild): RoleFields {
  const fields: RoleFields = {};
  const name = form.string('name', { max: 100 });
  if (name !== undefined) fields.name = name ?? 'new role';
  const permissions = form.permissions('permissions');
  if (permissions !== undefined) fields.permissions = permissions ?? everyone(guild).permissions;
  const color = form.integer('color', { min: 0, max: MAX_COLOR });
  if (color !== undefined) fields.color = color ?? 0;
  const colors = form.nested('colors');
  if (colors) fields.colors = readColors(colors, guild);
  for (const flag of ['hoist', 'mentionable'] as const) {
    const value = form.boolean(flag);
    if (value !== undefined) fields[flag] = value ?? false;
  }
  const icon = readImage(form, 'icon', ROLE_ICON_RULE, guild);
  if (icon !== undefined) fields.icon = icon;
  const emoji = readUnicodeEmoji(form, guild);
  if (emoji !== undefined) fields.unicode_emoji = emoji;
  form.check();
  if (fields.colors?.tertiary_color != null && !isHolographic(fields.colors)) {
    throw platformError.invalidRoleColor();
  }
  return fields;
}

/**
 * A role's unicode emoji, "a standard emoji" (topics/permissions), at most 100 characters as the
 * OpenAPI document says; like the icon it needs ROLE_ICONS, refused as the icon is
 * (GUILD_FEATURE_REQUIRED, see `readImage`). Null removes it, on any guild. The fake does not check
 * that the text is an emoji the platform knows.
 */
function readUnicodeEmoji(form: FormBody, guild: FakeGuild): string | null | undefined {
  const emoji = form.string('unicode_emoji', { min: 1, max: 100 });
  if (typeof emoji === 'string' && !guild.features.includes(ROLE_ICONS)) {
    return form.fail(
      'unicode_emoji',
      'GUILD_FEATURE_REQUIRED',
      `This guild needs the ${ROLE_ICONS} feature for this.`,
    );
  }
  return emoji;
}

/**
 * The Role Colors Object of a body. Discord documents that secondary and tertiary colours "can
 * only be set to a non-null value if the guild has the ENHANCED_ROLE_COLORS guild feature", but
 * not the answer otherwise: this fake reads it strictly and refuses the body (400 50035).
 */
function readColors(form: FormBody, guild: FakeGuild): Partial<RoleColors> {
  const colors: Partial<RoleColors> = {};
  const primary = form.integer('primary_color', { min: 0, max: MAX_COLOR });
  if (primary !== undefined) colors.primary_color = primary ?? 0;
  for (const field of ['secondary_color', 'tertiary_color'] as const) {
    const value = form.integer(field, { min: 0, max: MAX_COLOR });
    if (value === undefined) continue;
    colors[field] = value;
    if (value !== null && !guild.features.includes(ENHANCED_ROLE_COLORS)) {
      form.fail(field, 'ENHANCED_ROLE_COLORS_REQUIRED', 'This guild cannot have gradient role colors.');
    }
  }
  return colors;
}

function isHolographic(colors: Partial<RoleColors>): boolean {
  return (
    colors.primary_color === HOLOGRAPHIC.primary_color &&
    colors.secondary_color === HOLOGRAPHIC.secondary_color &&
    colors.tertiary_color === HOLOGRAPHIC.tertiary_color
  );
}

/**
 * Applies an edit. `colors` wins over the deprecated `color` when a body sends both (undocumented:
 * the stricter reading keeps the two from disagreeing); `color` alone sets the primary colour.
 */
function applyRoleFields(
  store: PlatformStore,
  role: FakeRole,
  { colors, color, icon, ...fields }: RoleFields,
): void {
  Object.assign(role, fields);
  if (icon !== undefined) {
    role.icon = icon?.hash ?? null;
    store.images.set('role_icon', role.id, icon);
  }
  if (colors) role.colors = { ...role.colors, ...colors };
  else if (color !== undefined) role.colors = { ...role.colors, primary_color: color };
  role.color = role.colors.primary_color;
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
        colors: { primary_color: 0, secondary_color: null, tertiary_color: null },
        hoist: false,
        icon: null,
        unicode_emoji: null,
        position: 1,
        permissions: everyone(guild).permissions,
        managed: false,
        mentionable: false,
        flags: 0,
      };
      bot.requireGrantable(BigInt(fields.permissions ?? everyone(guild).permissions));
      const watch = new GuildWatch(guild, ['roles']);
      applyRoleFields(store, role, fields);
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
      applyRoleFields(store, role, fields);
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
      store.images.drop('role_icon', role.id);
      renumber(guild, rolesAboveEveryone(guild));
      for (const member of guild.members) member.roles = member.roles.filter((id) => id !== role.id);
      for (const channel of guild.channels) {
        channel.permission_overwrites = channel.permission_overwrites.filter((o) => o.id !== role.id);
      }
      return noContent(watch.changes([role.id]));
    },
  },
];
