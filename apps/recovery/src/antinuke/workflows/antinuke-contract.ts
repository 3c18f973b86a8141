/**
 * What the AntiNuke workflow, its activities, the sink, the licence handler and the API agree on.
 * Only types, plain constants and named problems: workflow code imports this, and it runs in
 * Temporal's sandbox.
 */
import { PlatformErrors } from '../../platform/platform.errors';
import { SnapshotErrors } from '../../snapshots/snapshots.errors';
import type {
  DestructiveAction,
  DestructiveActionKind,
  IncidentAction,
  MemberRolesRemoved,
} from '../destructive-action';

export const ANTINUKE_WORKFLOW_TYPE = 'antinukeWorkflow';
export const DESTRUCTIVE_ACTION_SIGNAL = 'destructiveAction';
export const MEMBER_ROLES_REMOVED_SIGNAL = 'memberRolesRemoved';
export const SETTINGS_CHANGED_SIGNAL = 'settingsChanged';
export const ENTITLEMENTS_CHANGED_SIGNAL = 'entitlementsChanged';
export const ANTINUKE_STATE_QUERY = 'getState';

/** docs/decisions/antinuke.md: one long-lived workflow per guild. */
export function antinukeWorkflowId(guildId: string): string {
  return `antinuke-${guildId}`;
}

/** The per-guild setting (recovery.antinuke_settings), as the workflow holds it. */
export interface AntiNukeSettings {
  /** The owner's switch: off, no destructive action is counted and no incident opens (docs/behaviour.md §1.6). */
  enabled: boolean;
  /** Platform user ids the owner trusts (their own other bots, co-owners): never counted. */
  exempt_user_ids: string[];
  /**
   * The score one actor's actions reach to make a raid: `threshold` actions of weight one (a
   * dangerous grant or a prune weighs more). Three times it within ten minutes is a raid too.
   */
  threshold: number;
  /** ... within this many seconds (the short window). */
  window_seconds: number;
  /** The guild opted in to containing the actor (ENTERPRISE only). */
  auto_action_enabled: boolean;
  /** What the auto-action does besides quarantining the actor (absent in a run started before: quarantine). */
  auto_action_mode: AutoActionMode;
  /** The guild opted in to a lockdown when an incident opens (ENTERPRISE only; absent before: off). */
  auto_lockdown_enabled: boolean;
}

/** What a guild may set (the API's validation, the table's checks). */
export const ANTINUKE_SETTING_LIMITS = {
  threshold: { min: 2, max: 50 },
  window_seconds: { min: 1, max: 300 },
  exempt_user_ids: { max: 50 },
} as const;

/** A platform user id (snowflake): the form an exempt entry must have. */
export const PLATFORM_USER_ID_PATTERN = /^[0-9]{17,20}$/;

export const DEFAULT_ANTINUKE_SETTINGS: AntiNukeSettings = {
  enabled: true,
  exempt_user_ids: [],
  threshold: 3,
  window_seconds: 10,
  auto_action_enabled: false,
  auto_action_mode: 'quarantine',
  auto_lockdown_enabled: false,
};

/** The stored setting a workflow starts with: auto-action only where the plan allows it. */
export function startingSettings(stored: AntiNukeSettings, autoActionAllowed: boolean): AntiNukeSettings {
  return {
    enabled: stored.enabled,
    exempt_user_ids: [...stored.exempt_user_ids],
    threshold: stored.threshold,
    window_seconds: stored.window_seconds,
    auto_action_enabled: stored.auto_action_enabled && autoActionAllowed,
    auto_action_mode: stored.auto_action_mode,
    auto_lockdown_enabled: stored.auto_lockdown_enabled && autoActionAllowed,
  };
}

/** What the guild's plan allows (ANTINUKE_DETECT, ANTINUKE_AUTO_ACTION). */
export interface AntiNukeEntitlements {
  /** false ends the workflow. */
  detect: boolean;
  auto_action_allowed: boolean;
}

/** One actor's actions that reached the threshold. */
export interface Burst {
  /** The kind that weighed most, or `mixed` (a run from before weights: the one kind it counted). */
  kind: IncidentAction;
  actor_platform_user_id: string;
  /** Actions in the window when the threshold was reached. */
  count: number;
  /** Their weights added up; absent from a run from before weights (each weighed one). */
  score?: number;
  audit_log_entry_ids: string[];
  /** Epoch milliseconds of the first and last counted action. */
  first_at: number;
  last_at: number;
}

/**
 * The per-kind sliding windows of a run from before weights (BurstDetector), carried from one run
 * to the next on continue-as-new (plain JSON); a run with weights takes them over.
 */
export interface BurstDetectorState {
  /** The newest action time seen (epoch ms); older than this minus the window is stale. */
  latest_at: number;
  /** Per `kind|actor`: the counted actions, and when the open burst's last action was, if any. */
  windows: {
    key: string;
    actions: { id: string; at: number }[];
    burst_last_at: number | null;
  }[];
}

/** Each actor's score (RaidScore), carried from one run to the next on continue-as-new (plain JSON). */
export interface RaidScoreState {
  /** The newest action time seen (epoch ms); older than this minus the long window is stale. */
  latest_at: number;
  /** Per actor: the actions counted since their last burst, and their open burst if any. */
  actors: {
    actor: string;
    actions: { id: string; at: number; kind: DestructiveActionKind; weight: number }[];
    /** `quiet_ms`: how long without an action of theirs ends it. */
    burst: { last_at: number; quiet_ms: number } | null;
  }[];
}

/** What a raider did to members, as an incident records it (recovery.antinuke_incident_targets). */
export const INCIDENT_TARGET_KINDS = ['member_ban', 'member_kick', 'member_role_remove'] as const;
export type IncidentTargetKind = (typeof INCIDENT_TARGET_KINDS)[number];

/** One member banned, kicked, or stripped of one role (one row per role an entry removed). */
export interface IncidentTarget {
  kind: IncidentTargetKind;
  target_user_id: string;
  /** The role taken (`member_role_remove` only). */
  role_id: string | null;
  role_name: string | null;
  audit_log_entry_id: string;
  /** Epoch milliseconds. */
  at: number;
}

/**
 * The raids the guard follows, carried over continue-as-new (plain JSON): each actor's incidents
 * still open (their burst not yet quiet), and the member actions of the last window, which a
 * burst detected next attaches to its incident.
 */
export interface RaidTrackerState {
  raids: { actor: string; last_at: number; incident_ids: string[] }[];
  recent: (IncidentTarget & { actor: string })[];
}

export interface AntiNukeWorkflowInput {
  guildId: string;
  settings: AntiNukeSettings;
  entitlements: AntiNukeEntitlements;
  /** Set by continue-as-new: the windows and counters of the previous run (`raids` since incident targets). */
  carried?: {
    /** BurstDetectorState from a run before weights, RaidScoreState since. */
    detector: BurstDetectorState | RaidScoreState;
    incidents_opened: number;
    raids?: RaidTrackerState;
  };
  /** Signals one run handles before it continues as new; tests lower it. */
  signalsPerRun?: number;
}

export interface AntiNukeWorkflowResult {
  ended: 'detection_removed';
  incidents_opened: number;
}

/** The `getState` query: what the workflow runs with now. */
export interface AntiNukeWorkflowState {
  settings: AntiNukeSettings;
  entitlements: AntiNukeEntitlements;
  signals_this_run: number;
  /** Destructive actions signalled in this run, duplicates included. */
  actions_this_run: number;
  /** Of those, the ones not counted: AntiNuke switched off, or an exempt actor (docs/behaviour.md §1.6). */
  actions_ignored_this_run: number;
  incidents_opened: number;
  incidents_pending: number;
  /** Members banned, kicked or stripped of a role, waiting to be recorded on their incident. */
  targets_pending: number;
}

export interface IncidentSnapshotInput {
  guildId: string;
  incidentId: string;
}

export interface RemoveActorRolesInput {
  guildId: string;
  incidentId: string;
  actorPlatformUserId: string;
}

export interface AutoActionOutcome {
  taken: boolean;
  /** Why the roles were not removed (owner, the bot itself, a platform refusal). */
  error: string | null;
}

export interface OpenIncidentInput {
  incidentId: string;
  guildId: string;
  burst: Burst;
  snapshotId: string | null;
  snapshotError: string | null;
  autoActionTaken: boolean;
  autoActionError: string | null;
  /** ISO 8601: when the workflow saw the threshold reached. */
  openedAt: string;
  /** What the actor did to members so far in this raid; absent from a workflow started before targets. */
  targets?: IncidentTarget[];
}

/**
 * An incident as recorded: the workflow's burst, or the bot's removal, whose actor may be unknown
 * (the bot can no longer read the audit log that names them).
 */
export type IncidentToOpen = Omit<OpenIncidentInput, 'burst'> & {
  burst: Omit<Burst, 'actor_platform_user_id'> & { actor_platform_user_id: string | null };
};

export interface RecordIncidentTargetsInput {
  guildId: string;
  incidentId: string;
  targets: IncidentTarget[];
}

/** The activities, in the order an incident runs them. */
export interface AntiNukeActivities {
  /** The `antinuke` snapshot; throws on failure (the workflow retries a little, then goes on). */
  takeIncidentSnapshot(input: IncidentSnapshotInput): Promise<{ snapshotId: string }>;
  /**
   * Removes the actor's roles (runs started before quarantine only; kept registered so their
   * histories replay); a refusal no retry can change is an outcome, an outage throws.
   */
  removeActorRoles(input: RemoveActorRolesInput): Promise<AutoActionOutcome>;
  /** Quarantines the actor, saying exactly what was taken; refusals are outcomes, an outage throws. */
  quarantineActor(input: QuarantineActorInput): Promise<QuarantineOutcome>;
  /** Starts the guild's lockdown for the incident; null when one is already in force. */
  startIncidentLockdown(input: IncidentLockdownInput): Promise<{ lockdownId: string | null }>;
  /** Inserts the incident and AntiNukeIncidentOpened in one transaction; idempotent by incident id. */
  openIncident(input: OpenIncidentInput): Promise<void>;
  /**
   * Adds what the actor went on to do to members to an incident already recorded; idempotent
   * (an entry recorded twice is one row), and nothing for an incident that was never recorded.
   */
  recordIncidentTargets(input: RecordIncidentTargetsInput): Promise<void>;
}

// ---- Containment: quarantine and lockdown ----

/** `quarantine` takes the actor's dangerous roles; `kick` and `ban` then remove them from the guild. */
export const AUTO_ACTION_MODES = ['quarantine', 'kick', 'ban'] as const;
export type AutoActionMode = (typeof AUTO_ACTION_MODES)[number];

/** How long a lockdown an incident starts lasts. */
export const AUTO_LOCKDOWN_MINUTES = 60;

/** What a lockdown may last: the platform pauses invites for at most 24 hours. */
export const LOCKDOWN_MINUTES_LIMITS = { min: 1, max: 24 * 60 } as const;

export interface QuarantineActorInput {
  guildId: string;
  incidentId: string;
  actorPlatformUserId: string;
  mode: AutoActionMode;
}

/** A role taken from the actor. */
export interface QuarantinedRole {
  id: string;
  name: string;
}

/** A bot actor's own integration role, whose permissions were set to none. */
export interface StrippedRolePermissions {
  id: string;
  name: string;
  /** The role's permissions before (decimal string). */
  permissions: string;
  /** What the quarantine set them to; absent: none (a bot's own role). */
  set_to?: string;
}

/** Exactly what the quarantine took, so that "give back" can return it. */
export interface QuarantineRecord {
  actor_platform_user_id: string;
  roles_removed: QuarantinedRole[];
  role_permissions_stripped: StrippedRolePermissions[];
  /** The actor was also kicked or banned (`auto_action_mode`); null when not. */
  member_removed: 'kick' | 'ban' | null;
}

export interface QuarantineOutcome extends AutoActionOutcome {
  /** What was taken; null when nothing was (owner, the bot itself, a refusal before any change). */
  record: QuarantineRecord | null;
}

export interface IncidentLockdownInput {
  guildId: string;
  incidentId: string;
  minutes: number;
}

/** Failure types the activities raise that no retry can fix. */
export const ANTINUKE_NON_RETRYABLE_FAILURES = [
  PlatformErrors.guildNotFound.code,
  PlatformErrors.botPermissionDenied.code,
  PlatformErrors.requestRefused.code,
  SnapshotErrors.tooLarge.code,
  /** Every kept incident snapshot of the guild is still needed: a retry finds them all still needed. */
  SnapshotErrors.limitReached.code,
] as const;

export type { DestructiveAction, MemberRolesRemoved };
