import { PermissionFlagsBits } from 'discord-api-types/v10';

/** The permission bits the service checks, with the platform's values. */
export const PERMISSION = {
  ADMINISTRATOR: PermissionFlagsBits.Administrator,
  MANAGE_CHANNELS: PermissionFlagsBits.ManageChannels,
  MANAGE_GUILD: PermissionFlagsBits.ManageGuild,
  MANAGE_ROLES: PermissionFlagsBits.ManageRoles,
  VIEW_CHANNEL: PermissionFlagsBits.ViewChannel,
  SEND_MESSAGES: PermissionFlagsBits.SendMessages,
  BAN_MEMBERS: PermissionFlagsBits.BanMembers,
  READ_MESSAGE_HISTORY: PermissionFlagsBits.ReadMessageHistory,
  CREATE_GUILD_EXPRESSIONS: PermissionFlagsBits.CreateGuildExpressions,
  MANAGE_GUILD_EXPRESSIONS: PermissionFlagsBits.ManageGuildExpressions,
  MANAGE_WEBHOOKS: PermissionFlagsBits.ManageWebhooks,
} as const;

/** The permission names the service speaks of, as the platform names them. */
export type PermissionName = keyof typeof PERMISSION;

/**
 * What a timed-out member keeps (topics/permissions, "Permissions for Timed Out Members"): every
 * other bit is lost while `communication_disabled_until` is in the future. The owner and members
 * holding ADMINISTRATOR are exempt.
 */
export const TIMED_OUT_PERMISSIONS: bigint = PERMISSION.VIEW_CHANNEL | PERMISSION.READ_MESSAGE_HISTORY;

/** Every bit the platform defines; what the owner and administrators hold. */
export const ALL_PERMISSIONS: bigint = Object.values(PermissionFlagsBits).reduce((all, bit) => all | bit, 0n);

export interface GuildPermissionInput {
  ownerId: string;
  /** The @everyone role's permissions (decimal string as on the wire, or a bigint). */
  everyonePermissions: string | bigint;
  /** The guild's roles; only those the member holds count. */
  roles: { id: string; permissions: string }[];
  member: { user: { id: string }; roles: string[]; communication_disabled_until?: string | null };
}

/**
 * A member's guild-level permissions as the platform computes them: the owner holds everything;
 * otherwise @everyone's bits plus those of each held role, and ADMINISTRATOR grants everything.
 * Channel overrides do not matter for guild-level checks such as MANAGE_GUILD.
 */
export function computeGuildPermissions(input: GuildPermissionInput): bigint {
  if (input.member.user.id === input.ownerId) return ALL_PERMISSIONS;
  const held = new Set(input.member.roles);
  let permissions = BigInt(input.everyonePermissions);
  for (const role of input.roles) {
    if (held.has(role.id)) permissions |= BigInt(role.permissions);
  }
  return (permissions & PERMISSION.ADMINISTRATOR) === PERMISSION.ADMINISTRATOR
    ? ALL_PERMISSIONS
    : permissions;
}

export function hasPermission(permissions: bigint, bit: bigint): boolean {
  return (permissions & bit) === bit;
}

/** Whether a timeout ending at `until` (ISO 8601) is in force at `now`; an unreadable time is not one. */
export function isTimedOut(until: string | null | undefined, now: Date = new Date()): boolean {
  if (!until) return false;
  const ends = Date.parse(until);
  return Number.isFinite(ends) && ends > now.getTime();
}

/**
 * What a member may do in the guild now, as the platform decides it: the guild-level bits of their
 * roles (computeGuildPermissions), cut to TIMED_OUT_PERMISSIONS while they are timed out unless
 * they are the owner or hold ADMINISTRATOR.
 */
export function memberPermissions(input: GuildPermissionInput, now: Date = new Date()): bigint {
  const permissions = computeGuildPermissions(input);
  if (hasPermission(permissions, PERMISSION.ADMINISTRATOR)) return permissions;
  return isTimedOut(input.member.communication_disabled_until, now)
    ? permissions & TIMED_OUT_PERMISSIONS
    : permissions;
}

/** Whether the member may administer the guild in this service (spec: MANAGE_GUILD), a timeout counted. */
export function hasManageGuild(input: GuildPermissionInput, now: Date = new Date()): boolean {
  return hasPermission(memberPermissions(input, now), PERMISSION.MANAGE_GUILD);
}

/** The names of the bits of `required` that `permissions` lacks, in PERMISSION's order. */
export function missingPermissions(
  permissions: bigint,
  required: readonly PermissionName[],
): PermissionName[] {
  return required.filter((name) => !hasPermission(permissions, PERMISSION[name]));
}

export interface ChannelPermissionInput {
  /** The member's guild-level permissions (computeGuildPermissions). */
  guildPermissions: bigint;
  /** The guild's id, which is @everyone's role id. */
  everyoneId: string;
  userId: string;
  /** The member's roles, without @everyone. */
  roleIds: readonly string[];
  /** The channel's overrides. */
  overrides: readonly { id: string; type: 'role' | 'member'; allow: string; deny: string }[];
}

/**
 * A member's permissions in one channel, as the platform computes them (topics/permissions,
 * "Permission Overwrites"): the guild-level bits, then @everyone's override, then the member's
 * roles' overrides together (denies, then allows), then the member's own override. ADMINISTRATOR
 * bypasses overrides; without VIEW_CHANNEL nothing else counts ("Implicit Permissions").
 */
export function computeChannelPermissions(input: ChannelPermissionInput): bigint {
  if (hasPermission(input.guildPermissions, PERMISSION.ADMINISTRATOR)) return ALL_PERMISSIONS;
  const apply = (bits: bigint, o: { allow: string; deny: string }) =>
    (bits & ~BigInt(o.deny)) | BigInt(o.allow);
  let bits = input.guildPermissions;
  const everyone = input.overrides.find((o) => o.type === 'role' && o.id === input.everyoneId);
  if (everyone) bits = apply(bits, everyone);
  const held = new Set(input.roleIds);
  const roles = input.overrides.filter((o) => o.type === 'role' && held.has(o.id));
  const allow = roles.reduce((all, o) => all | BigInt(o.allow), 0n);
  const deny = roles.reduce((all, o) => all | BigInt(o.deny), 0n);
  bits = (bits & ~deny) | allow;
  const own = input.overrides.find((o) => o.type === 'member' && o.id === input.userId);
  if (own) bits = apply(bits, own);
  return hasPermission(bits, PERMISSION.VIEW_CHANNEL) ? bits : 0n;
}

/**
 * The permissions a raider needs to damage a guild: whoever holds one of these can delete, ban,
 * kick, rewrite permissions, create webhooks or ping everyone. AntiNuke takes roles carrying them
 * from a raider, and counts their grant as a destructive action.
 */
export const DANGEROUS_PERMISSIONS = {
  ADMINISTRATOR: PermissionFlagsBits.Administrator,
  MANAGE_GUILD: PermissionFlagsBits.ManageGuild,
  MANAGE_ROLES: PermissionFlagsBits.ManageRoles,
  MANAGE_CHANNELS: PermissionFlagsBits.ManageChannels,
  BAN_MEMBERS: PermissionFlagsBits.BanMembers,
  KICK_MEMBERS: PermissionFlagsBits.KickMembers,
  MANAGE_WEBHOOKS: PermissionFlagsBits.ManageWebhooks,
  MENTION_EVERYONE: PermissionFlagsBits.MentionEveryone,
} as const;

/** Every dangerous bit in one mask. */
export const DANGEROUS_PERMISSION_BITS: bigint = Object.values(DANGEROUS_PERMISSIONS).reduce(
  (all, bit) => all | bit,
  0n,
);

/** Whether a permission bit set (decimal string as on the wire, or a bigint) holds any dangerous bit. */
export function grantsDangerousPermission(permissions: string | bigint): boolean {
  return (BigInt(permissions) & DANGEROUS_PERMISSION_BITS) !== 0n;
}
