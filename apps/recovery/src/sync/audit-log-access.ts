import { computeGuildPermissions, type GuildState } from '@lib/chat-platform';
import { PermissionFlagsBits } from 'discord-api-types/v10';
import type { GuildEvent } from './guild-events';
import type { GuildMirror } from './guild-mirror';

/** What lets the bot read the audit log: VIEW_AUDIT_LOG, or ADMINISTRATOR, which grants every bit. */
const READS_AUDIT_LOG = PermissionFlagsBits.ViewAuditLog | PermissionFlagsBits.Administrator;

function grantsAuditLog(permissions: string | null): boolean {
  return permissions !== null && /^\d+$/.test(permissions) && (BigInt(permissions) & READS_AUDIT_LOG) !== 0n;
}

/**
 * Whether a role event, before the mirror applies it, may have taken the audit log from whoever
 * holds the role: a role that granted it no longer does, or is deleted. Which members hold it the
 * mirror does not know; the bot's own roles are read only then.
 */
export function mayTakeAuditLog(mirror: GuildMirror, event: GuildEvent): boolean {
  if (event.type === 'role_update')
    return grantsAuditLog(mirror.rolePermissions(event.role.id)) && !grantsAuditLog(event.role.permissions);
  if (event.type === 'role_delete') return grantsAuditLog(mirror.rolePermissions(event.roleId));
  return false;
}

/** Whether a member with these roles can read the guild's audit log, as the platform computes it. */
export function readsAuditLog(state: GuildState, userId: string, roleIds: string[]): boolean {
  const everyone = state.roles.find((role) => role.id === state.guild.id);
  const permissions = computeGuildPermissions({
    ownerId: state.guild.owner_id,
    everyonePermissions: everyone?.permissions ?? '0',
    roles: state.roles,
    member: { user: { id: userId }, roles: roleIds },
  });
  return (permissions & PermissionFlagsBits.ViewAuditLog) !== 0n;
}
