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

/** Where live sync sends destructive actions; AntiNuke provides it. */
export interface DestructiveActionSink {
  record(action: DestructiveAction): Promise<void>;
}

export const DESTRUCTIVE_ACTION_SINK = Symbol('DESTRUCTIVE_ACTION_SINK');
