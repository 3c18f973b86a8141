/**
 * What the restore workflow, its activities and the API agree on: names, inputs and outputs. Only
 * types, plain constants and named problems: workflow code imports this, and it runs in Temporal's
 * sandbox.
 */
import type { RestoreResultSummary, RestoreScope } from '@lib/contracts';
import { SnapshotErrors } from '../../snapshots/snapshots.errors';
import { RestoreErrors } from '../restore.errors';
import { CHANGE_STEPS, type ChangeStep, describeStep, type StepActivityName } from '../steps/change-steps';

export const RESTORE_WORKFLOW_TYPE = 'restoreWorkflow';
export const CANCEL_RESTORE_SIGNAL = 'cancel';
export const RESTORE_PROGRESS_QUERY = 'getProgress';

export function restoreWorkflowId(jobId: string): string {
  return `restore-${jobId}`;
}

export { CHANGE_STEPS, type ChangeStep, type StepActivityName } from '../steps/change-steps';

/** The restore scope each change step belongs to (CHANGE_STEP_TABLE). */
export const STEP_SCOPE = Object.fromEntries(
  CHANGE_STEPS.map((step) => [step, describeStep(step).scope]),
) as Record<ChangeStep, RestoreScope>;

export type StepName = 'ValidateSnapshot' | 'CreatePreRestoreSnapshot' | 'PauseLiveSync' | ChangeStep;
export type StepStatus = 'pending' | 'running' | 'done' | 'skipped' | 'failed' | 'canceled';

/**
 * What the platform makes a step wait for: its quota of role or channel creations (about 250 roles
 * and 500 channels per guild per 48 hours), a channel's name/topic edits (2 per 10 minutes), or
 * another limit asking for a long wait.
 */
export const PLATFORM_WAIT_REASONS = [
  'role_creation_quota',
  'channel_creation_quota',
  'channel_edit_limit',
  'rate_limit',
] as const;
export type PlatformWaitReason = (typeof PLATFORM_WAIT_REASONS)[number];

/** A wait the platform asked for, longer than the platform client waits out inside a call. */
export interface PlatformWait {
  reason: PlatformWaitReason;
  /** ISO 8601: when the platform takes the step's requests again. */
  until: string;
}

/** docs/decisions/progress.md: `{ done, total, current_step, steps: [{ name, status, done, total }] }`. */
export interface ProgressSummary {
  done: number;
  total: number;
  current_step: StepName | null;
  steps: { name: StepName; status: StepStatus; done: number; total: number }[];
  /**
   * While a step waits for the platform (PlatformWait): which step, why, until when, and a
   * sentence saying so; absent otherwise. The earliest-ending wait when several steps wait.
   */
  waiting?: PlatformWait & { step: ChangeStep; message: string };
}

export interface RestoreWorkflowInput {
  jobId: string;
  scope: RestoreScope[];
  createPreRestoreSnapshot: boolean;
  /** Changes per step in the approved preview: the progress totals. */
  totals: Partial<Record<ChangeStep, number>>;
  /** A run taken up again where an earlier one stopped while waiting for the platform. */
  resume?: RestoreResume;
}

/**
 * What a run waiting for the platform leaves when its process stops (the in-process engine; a
 * Temporal run's wait is a durable timer): the wait, the progress and the counts so far. The run
 * taken up from it skips the pre-restore snapshot already taken, sleeps until the wait's end in
 * the step that waited, and calls every step again (each re-reads the guild and does only what is
 * left), adding to these counts.
 */
export interface RestoreResume {
  waiting: NonNullable<ProgressSummary['waiting']>;
  progress: ProgressSummary;
  summary: RestoreResultSummary;
}

export interface JobRef {
  jobId: string;
}

/**
 * A change step's call. `awaiting`: steps still running beside it whose work it depends on (roles
 * that channels' overwrites name, channels that overwrites go on). The step then changes only what
 * does not wait on them, and leaves the rest for a later call; without it, the step does all it can.
 */
export interface StepRef extends JobRef {
  awaiting?: ChangeStep[];
}

/** One call of a change step: it re-reads the guild and applies at most a batch of what is left. */
export interface StepOutcome {
  created: number;
  updated: number;
  deleted: number;
  /** Roles given back over all members updated (RestoreMemberRoles; `updated` counts the members). */
  assigned?: number;
  /** Changes still to make after this batch; the workflow calls the step again while > 0. */
  remaining: number;
  /**
   * All that is left waits for the steps it was told it awaits (StepRef.awaiting): the workflow
   * calls it again once one of them has ended, not at once.
   */
  waiting?: boolean;
  /**
   * The platform asked for a long wait (PlatformWait) before the rest: the workflow waits until
   * then (a durable timer on Temporal; cancel still ends it), then calls the step again.
   */
  pause?: PlatformWait;
}

/** Change steps that run side by side, phase after phase. */
export type StepPhases = readonly (readonly ChangeStep[])[];

/**
 * Which change steps run side by side, phase after phase (CHANGE_STEP_TABLE's `phase`): the
 * channel and role deletes (each its own rate-limit bucket, and they make room under the
 * platform's channel and role limits); then overwrite deletes, roles, channels and overwrites
 * (channels wait for the roles their overwrites name, overwrites for their channel and role, each
 * item by itself rather than the whole step); then the settings, which name channels, beside
 * members' roles (which need every role made) and the bans. Within the second phase the platform's
 * busiest bucket (channel creation) is kept busy from the start instead of after every role
 * exists. (A run begun before members' roles existed never has their scopes, so their steps in the
 * last phase replay as skipped.)
 *
 * Overwrite deletes run beside the creates safely because a comparison reads the recorded
 * replacements after the guild (RestoreComparisons.compare): an overwrite the read shows for a
 * recreated role or on a recreated channel was made from a replacement already recorded, so it is
 * never taken for one to remove.
 */
export const OVERLAPPED_PHASES: StepPhases = ([1, 2, 3] as const).map((phase) =>
  CHANGE_STEPS.filter((step) => describeStep(step).phase === phase),
);

/** The phases of the first overlapped build: how a run begun on it replays. */
export const FIRST_OVERLAPPED_PHASES: StepPhases = [
  ['DeleteRemovedOverrides', 'DeleteRemovedChannels', 'DeleteRemovedRoles'],
  ['CreateOrUpdateRoles', 'CreateOrUpdateChannels', 'ApplyPermissionOverrides'],
  ['UpdateGuildSettings', 'RestoreMemberRoles', 'LiftBans'],
];

/** What a step waits for while it runs beside them (the others of its phase it depends on). */
export const STEP_DEPENDS_ON = Object.fromEntries(
  CHANGE_STEPS.map((step) => [step, describeStep(step).dependsOn ?? []]),
) as Record<ChangeStep, readonly ChangeStep[]>;

export interface PreRestoreOutcome {
  snapshotId: string | null;
  /** Set when the pre-restore snapshot failed: the restore goes on and the user is warned. */
  warning: string | null;
}

export interface RestoreEnding extends JobRef {
  summary: RestoreResultSummary;
}

export interface RestoreFailure extends JobRef {
  status: 'failed' | 'canceled';
  /** The failure type (e.g. PermissionDenied) or `canceled` / `guild_deleted`. */
  code: string;
  message: string;
}

/** A change step's activity: one call of the step (StepOutcome). */
export type StepActivity = (input: StepRef) => Promise<StepOutcome>;

/**
 * The activities: those around the change steps, named as the restore order names them, and one
 * per change step (CHANGE_STEP_TABLE's `activity`).
 */
export interface RestoreActivities extends Record<StepActivityName, StepActivity> {
  validateSnapshot(input: JobRef): Promise<void>;
  createPreRestoreSnapshot(input: JobRef): Promise<PreRestoreOutcome>;
  pauseLiveSync(input: JobRef): Promise<void>;
  resumeLiveSync(input: JobRef): Promise<void>;
  completeRestore(input: RestoreEnding): Promise<void>;
  endRestoreUnsuccessfully(input: RestoreFailure): Promise<void>;
}

/** The activity carrying out each change step. */
export const STEP_ACTIVITY = Object.fromEntries(
  CHANGE_STEPS.map((step) => [step, describeStep(step).activity]),
) as Record<ChangeStep, StepActivityName>;

/**
 * Failure types that end a run at once (docs/behaviour.md §7: PermissionDenied and GuildNotFound), those
 * no retry can ever fix because what they report about stored data never changes back, and a body
 * the platform refuses. Anything else is retried: each attempt re-reads the live guild and
 * computes its requests anew, so a vanished item (NotFound) or an outage may pass next time.
 */
export const NON_RETRYABLE_FAILURES = [
  /** docs/behaviour.md §7.1: the bot lacks a permission on the guild. */
  'PermissionDenied',
  /**
   * The platform refused the request itself (400: 50035 Invalid Form Body, a limit reached): the
   * same request is refused the same way on every attempt, so retrying only spends the attempts.
   */
  'InvalidRequest',
  /** docs/behaviour.md §7.1: the guild is gone from the platform; the job ends canceled ("guild deleted"). */
  'GuildNotFound',
  /** The snapshot's payload version is one this build cannot read; a stored payload never changes. */
  SnapshotErrors.unsupported.code,
  /** The snapshot was deleted (by a user or retention); a deleted snapshot never comes back. */
  SnapshotErrors.notFound.code,
  /** The job's own row is gone; nothing is left to restore for. */
  RestoreErrors.jobNotFound.code,
] as const;
