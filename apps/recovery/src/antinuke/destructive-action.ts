/**
 * The contract between live sync (which sees what happens in a guild) and AntiNuke (which decides
 * whether it is a raid). Live sync reports every destructive action with its actor and weight,
 * taken from the platform's audit-log entries; AntiNuke adds the weights up per guild and actor.
 */
export const DESTRUCTIVE_ACTION_KINDS = [
  'channel_delete',
  'role_delete',
  'member_ban',
  'member_kick',
  /** Members pruned at once; weighs one per member removed. */
  'member_prune',
  /** A role (or @everyone) given a dangerous permission. */
  'permission_grant',
  /** A member given a role that holds a dangerous permission. */
  'dangerous_role_grant',
  /** Roles taken from a member; weighs one per role. */
  'member_role_remove',
  /** A channel's permission overwrite created, changed or deleted. */
  'channel_overwrite',
  'webhook_create',
  'bot_add',
  'vanity_url_change',
  'emoji_delete',
  'sticker_delete',
] as const;
export type DestructiveActionKind = (typeof DESTRUCTIVE_ACTION_KINDS)[number];

/** The kinds counted before actions were weighed; a run started then knows only these. */
export const LEGACY_DESTRUCTIVE_ACTION_KINDS: readonly DestructiveActionKind[] = [
  'channel_delete',
  'role_delete',
  'member_ban',
  'member_kick',
];

/**
 * What an incident says the actor did: the kind that weighed most in the score that opened it,
 * `mixed` when no kind made more than half of it, or the bot's own removal or its loss of the
 * audit log, which open an incident at once.
 */
export const INCIDENT_ACTIONS = [
  ...DESTRUCTIVE_ACTION_KINDS,
  'mixed',
  'bot_removed',
  'bot_audit_log_lost',
] as const;
export type IncidentAction = (typeof INCIDENT_ACTIONS)[number];

export interface DestructiveAction {
  /** Our guild id (recovery.guilds.id). */
  guild_id: string;
  platform_guild_id: string;
  kind: DestructiveActionKind;
  /**
   * How much it counts towards the actor's score (a positive integer): one for an ordinary
   * destructive action, more for one that does more harm. Absent from an older live sync: one.
   */
  weight?: number;
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
 * Roles taken from a member (the platform's MEMBER_ROLE_UPDATE entry, its `$remove` change). Its
 * weight is counted by the destructive action the same entry makes (`member_role_remove`); this
 * signal records the roles on the actor's open incident, so that "undo this raid" can show and
 * give back what a raider stripped.
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
