import { DANGEROUS_PERMISSION_BITS } from '@lib/chat-platform';
import { AuditLogEvent } from 'discord-api-types/v10';
import type {
  DestructiveAction,
  DestructiveActionKind,
  MemberRolesRemoved,
} from '../antinuke/destructive-action';
import type { AuditLogChange, AuditLogEntry } from './guild-events';

/**
 * What each kind weighs towards the actor's score. The guild's threshold is a score: `threshold`
 * actions of weight one. A dangerous permission given to @everyone hands the guild to every member
 * at once, so it weighs the highest threshold a guild may set and opens an incident on its own.
 */
export const ACTION_WEIGHTS = {
  channel_delete: 1,
  role_delete: 1,
  member_ban: 1,
  member_kick: 1,
  /** Per member removed. */
  member_prune: 1,
  permission_grant: 2,
  permission_grant_everyone: 50,
  dangerous_role_grant: 1,
  /** Per role taken. */
  member_role_remove: 1,
  channel_overwrite: 1,
  webhook_create: 1,
  bot_add: 2,
  vanity_url_change: 2,
  emoji_delete: 1,
  sticker_delete: 1,
} as const;

/** A prune's weight is capped here: past it the incident is certain and the number means nothing more. */
const MAX_PRUNE_WEIGHT = 1_000;

/** The kinds one audit-log action type always is, each weighing its table weight. */
const FIXED_KINDS: ReadonlyMap<number, DestructiveActionKind> = new Map([
  [AuditLogEvent.ChannelDelete, 'channel_delete'],
  [AuditLogEvent.RoleDelete, 'role_delete'],
  [AuditLogEvent.MemberBanAdd, 'member_ban'],
  [AuditLogEvent.MemberKick, 'member_kick'],
  [AuditLogEvent.ChannelOverwriteCreate, 'channel_overwrite'],
  [AuditLogEvent.ChannelOverwriteUpdate, 'channel_overwrite'],
  [AuditLogEvent.ChannelOverwriteDelete, 'channel_overwrite'],
  [AuditLogEvent.WebhookCreate, 'webhook_create'],
  [AuditLogEvent.BotAdd, 'bot_add'],
  [AuditLogEvent.EmojiDelete, 'emoji_delete'],
  [AuditLogEvent.StickerDelete, 'sticker_delete'],
]);

/**
 * The permissions of a guild's role as the mirror knows them (decimal string), or null when it
 * does not know the role (not mirrored yet, paused by a restore).
 */
export type RolePermissions = (roleId: string) => string | null;

/** The platform's epoch (2015-01-01T00:00:00Z); a snowflake carries its creation time from there. */
const PLATFORM_EPOCH_MS = 1_420_070_400_000n;

/**
 * The destructive action an audit-log entry records, with its kind and weight, or null when it
 * records something harmless or names no actor. `rolePermissions` tells which roles a member was
 * given hold a dangerous permission; a role it does not know is not counted as dangerous (giving
 * roles is everyday moderation, and the mirror knows every role of a guild it follows).
 */
export function toDestructiveAction(
  guild: { id: string; platformGuildId: string },
  entry: AuditLogEntry,
  rolePermissions: RolePermissions = () => null,
): DestructiveAction | null {
  if (!entry.actorId) return null;
  const weighed = weigh(guild.platformGuildId, entry, rolePermissions);
  if (!weighed) return null;
  return {
    guild_id: guild.id,
    platform_guild_id: guild.platformGuildId,
    kind: weighed.kind,
    weight: weighed.weight,
    actor_platform_user_id: entry.actorId,
    target_id: entry.targetId,
    audit_log_entry_id: entry.id,
    at: snowflakeTime(entry.id).toISOString(),
  };
}

function weigh(
  platformGuildId: string,
  entry: AuditLogEntry,
  rolePermissions: RolePermissions,
): { kind: DestructiveActionKind; weight: number } | null {
  const fixed = FIXED_KINDS.get(entry.actionType);
  if (fixed) return { kind: fixed, weight: ACTION_WEIGHTS[fixed] };
  switch (entry.actionType) {
    case Number(AuditLogEvent.MemberPrune): {
      const removed = Number(entry.options?.members_removed);
      // A prune that removed nobody harms nobody; an unreadable count is taken as one member.
      if (Number.isInteger(removed) && removed <= 0) return null;
      const members = Number.isInteger(removed) ? Math.min(removed, MAX_PRUNE_WEIGHT) : 1;
      return { kind: 'member_prune', weight: members * ACTION_WEIGHTS.member_prune };
    }
    case Number(AuditLogEvent.RoleUpdate): {
      const change = entry.changes.find((candidate) => candidate.key === 'permissions');
      if (!change || (grantedBits(change) & DANGEROUS_PERMISSION_BITS) === 0n) return null;
      // The @everyone role's id is the guild's.
      const everyone = entry.targetId === platformGuildId;
      return {
        kind: 'permission_grant',
        weight: everyone ? ACTION_WEIGHTS.permission_grant_everyone : ACTION_WEIGHTS.permission_grant,
      };
    }
    case Number(AuditLogEvent.MemberRoleUpdate): {
      const dangerous = changedRoles(entry.changes, '$add').filter((role) =>
        isDangerous(rolePermissions(role.id)),
      ).length;
      const removed = changedRoles(entry.changes, '$remove').length;
      const weight =
        dangerous * ACTION_WEIGHTS.dangerous_role_grant + removed * ACTION_WEIGHTS.member_role_remove;
      if (weight === 0) return null;
      return { kind: dangerous > 0 ? 'dangerous_role_grant' : 'member_role_remove', weight };
    }
    case Number(AuditLogEvent.GuildUpdate):
      return entry.changes.some((change) => change.key === 'vanity_url_code')
        ? { kind: 'vanity_url_change', weight: ACTION_WEIGHTS.vanity_url_change }
        : null;
    default:
      return null;
  }
}

/** The permission bits a `permissions` change added (the values are decimal strings). */
function grantedBits(change: AuditLogChange): bigint {
  return bits(change.new_value) & ~bits(change.old_value);
}

function bits(value: unknown): bigint {
  if (typeof value !== 'string' || !/^\d{1,40}$/.test(value)) return 0n;
  return BigInt(value);
}

function isDangerous(permissions: string | null): boolean {
  return permissions !== null && (bits(permissions) & DANGEROUS_PERMISSION_BITS) !== 0n;
}

/** The roles of a MEMBER_ROLE_UPDATE's `$add` or `$remove` change (`[{ id, name }]`). */
function changedRoles(changes: AuditLogChange[], key: '$add' | '$remove'): { id: string; name: string }[] {
  return changes
    .filter((change) => change.key === key && Array.isArray(change.new_value))
    .flatMap((change) => change.new_value as unknown[])
    .flatMap((role) => {
      const { id, name } = (typeof role === 'object' && role !== null ? role : {}) as Record<string, unknown>;
      return typeof id === 'string' && id !== '' ? [{ id, name: typeof name === 'string' ? name : '' }] : [];
    });
}

/**
 * The roles a MEMBER_ROLE_UPDATE entry took from a member (its `$remove` change, `[{ id, name }]`),
 * or null when it records something else, took none, or names no actor or member.
 */
export function toMemberRolesRemoved(
  guild: { id: string; platformGuildId: string },
  entry: AuditLogEntry,
): MemberRolesRemoved | null {
  if (entry.actionType !== Number(AuditLogEvent.MemberRoleUpdate) || !entry.actorId || !entry.targetId)
    return null;
  const roles = changedRoles(entry.changes, '$remove');
  if (roles.length === 0) return null;
  return {
    guild_id: guild.id,
    platform_guild_id: guild.platformGuildId,
    actor_platform_user_id: entry.actorId,
    target_user_id: entry.targetId,
    roles,
    audit_log_entry_id: entry.id,
    at: snowflakeTime(entry.id).toISOString(),
  };
}

/** When the platform created the thing a snowflake names; the current time for a malformed id. */
export function snowflakeTime(id: string): Date {
  if (!/^\d{1,20}$/.test(id)) return new Date();
  return new Date(Number((BigInt(id) >> 22n) + PLATFORM_EPOCH_MS));
}
