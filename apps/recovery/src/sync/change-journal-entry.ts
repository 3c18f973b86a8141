import type { GuildSettings, PermissionOverride, PlatformChannel, PlatformRole } from '@lib/chat-platform';
import { snowflakeTime } from './destructive-actions';
import type { AuditLogChange, AuditLogEntry } from './guild-events';

/** Guild settings that name a channel; the platform clears them when that channel goes. */
export const CHANNEL_SETTINGS = [
  'afk_channel_id',
  'system_channel_id',
  'rules_channel_id',
  'public_updates_channel_id',
] as const;
export type ChannelSetting = (typeof CHANNEL_SETTINGS)[number];

/** A channel as the mirror held it before a change: with its overrides, and what a delete clears. */
export interface ChannelBefore {
  channel: PlatformChannel;
  overrides: PermissionOverride[];
  /** A deleted category: the channels that were in it (the platform leaves them without a parent). */
  children?: string[];
  /** A deleted channel: the settings that named it (the platform clears them). */
  settings?: ChannelSetting[];
}

/** A role as the mirror held it before a change, with the channel overrides naming it (a delete takes them). */
export interface RoleBefore {
  role: PlatformRole;
  overrides: PermissionOverride[];
  /** A deleted role: the role right below it then (the platform renumbers the others). */
  below?: string;
}

/** One change the mirror applied, with the object as it was before it; a creation has no before. */
export type JournalChange =
  | { object_type: 'channel'; object_id: string; change: 'create' }
  | { object_type: 'channel'; object_id: string; change: 'update' | 'delete'; before: ChannelBefore }
  | { object_type: 'role'; object_id: string; change: 'create' }
  | { object_type: 'role'; object_id: string; change: 'update' | 'delete'; before: RoleBefore }
  | { object_type: 'settings'; object_id: string; change: 'update'; before: GuildSettings };

/** A journal change as stored: when the mirror applied it. */
export type JournalChangeRow = JournalChange & { at: Date };

/** An audit-log entry as the journal keeps it: who did what to which object, with the old values. */
export interface JournalAuditEntry {
  entry_id: string;
  actor_id: string | null;
  action_type: number;
  target_id: string | null;
  changes: AuditLogChange[];
  /** When the platform wrote it (its id's time). */
  at: Date;
}

export function toJournalAuditEntry(entry: AuditLogEntry): JournalAuditEntry {
  return {
    entry_id: entry.id,
    actor_id: entry.actorId,
    action_type: entry.actionType,
    target_id: entry.targetId,
    changes: entry.changes,
    at: snowflakeTime(entry.id),
  };
}
