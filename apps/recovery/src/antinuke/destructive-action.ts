/**
 * The contract between live sync (which sees what happens in a guild) and AntiNuke (which decides
 * whether it is a raid). Live sync reports every destructive action with its actor, taken from the
 * platform's audit-log entries; AntiNuke counts them per guild, kind and actor.
 */
export const DESTRUCTIVE_ACTION_KINDS = [
  'channel_delete',
  'role_delete',
  'member_ban',
  'member_kick',
] as const;
export type DestructiveActionKind = (typeof DESTRUCTIVE_ACTION_KINDS)[number];

export interface DestructiveAction {
  /** Our guild id (recovery.guilds.id). */
  guild_id: string;
  platform_guild_id: string;
  kind: DestructiveActionKind;
  /** Who did it (the audit-log entry's user_id). */
  actor_platform_user_id: string;
  /** What was deleted, banned or kicked. */
  target_id: string | null;
  /** The audit-log entry id: the same action reported twice is counted once. */
  audit_log_entry_id: string;
  /** When the platform recorded it (ISO 8601). */
  at: string;
}

/**
 * Roles taken from a member (the platform's MEMBER_ROLE_UPDATE entry, its `$remove` change). Not a
 * destructive action: it never opens an incident. An incident open for the actor records it, so
 * that "undo this raid" can show and give back what a raider stripped.
 */
export interface MemberRolesRemoved {
  guild_id: string;
  platform_guild_id: string;
  actor_platform_user_id: string;
  /** The member who lost the roles. */
  target_user_id: string;
  /** The roles taken, with the names they had then (a role deleted later keeps its name here). */
  roles: { id: string; name: string }[];
  audit_log_entry_id: string;
  /** When the platform recorded it (ISO 8601). */
  at: string;
}

/** Where live sync sends destructive actions and role removals; AntiNuke provides it. */
export interface DestructiveActionSink {
  record(action: DestructiveAction): Promise<void>;
  recordRoleRemoval(removal: MemberRolesRemoved): Promise<void>;
}

export const DESTRUCTIVE_ACTION_SINK = Symbol('DESTRUCTIVE_ACTION_SINK');
