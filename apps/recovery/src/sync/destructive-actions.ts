import { AuditLogEvent } from 'discord-api-types/v10';
import type {
  DestructiveAction,
  DestructiveActionKind,
  MemberRolesRemoved,
} from '../antinuke/destructive-action';
import type { AuditLogEntry } from './guild-events';

const KIND_BY_ACTION: ReadonlyMap<number, DestructiveActionKind> = new Map([
  [AuditLogEvent.ChannelDelete, 'channel_delete'],
  [AuditLogEvent.RoleDelete, 'role_delete'],
  [AuditLogEvent.MemberBanAdd, 'member_ban'],
  [AuditLogEvent.MemberKick, 'member_kick'],
]);

/** The platform's epoch (2015-01-01T00:00:00Z); a snowflake carries its creation time from there. */
const PLATFORM_EPOCH_MS = 1_420_070_400_000n;

/** The destructive action an audit-log entry records, or null when it records something else. */
export function toDestructiveAction(
  guild: { id: string; platformGuildId: string },
  entry: AuditLogEntry,
): DestructiveAction | null {
  const kind = KIND_BY_ACTION.get(entry.actionType);
  if (!kind || !entry.actorId) return null;
  return {
    guild_id: guild.id,
    platform_guild_id: guild.platformGuildId,
    kind,
    actor_platform_user_id: entry.actorId,
    target_id: entry.targetId,
    audit_log_entry_id: entry.id,
    at: snowflakeTime(entry.id).toISOString(),
  };
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
  const roles = entry.changes
    .filter((change) => change.key === '$remove' && Array.isArray(change.new_value))
    .flatMap((change) => change.new_value as unknown[])
    .flatMap((role) => {
      const { id, name } = (typeof role === 'object' && role !== null ? role : {}) as Record<string, unknown>;
      return typeof id === 'string' && id !== '' ? [{ id, name: typeof name === 'string' ? name : '' }] : [];
    });
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
