/**
 * Every change step of a restore, described once: what the rest of the restore (the procedure's
 * order and phases, the activity Temporal runs, the progress totals, the summary's counts, the
 * progress labels) derives from. Adding a step: its entry here, its handler in a file of this
 * folder (with its spec), and its line in STEP_HANDLERS (index.ts).
 *
 * Only plain data and small pure functions: workflow code imports this, and it runs in
 * Temporal's sandbox.
 */
import type { RestoreResultSummary, RestoreScope } from '@lib/contracts';
import type { RestoreDiff } from '../diff/diff-model';

/** The counts of one call of a step (StepOutcome) that go into the restore's summary. */
export type OutcomeCount = 'created' | 'updated' | 'deleted' | 'assigned';

/** The summary's counters a step adds to. */
export type SummaryCounter = Exclude<keyof RestoreResultSummary, 'skipped' | 'members_absent'>;

export interface ChangeStepDescription {
  /** The restore scope that asks for the step; a restore without it skips the step. */
  scope: RestoreScope;
  /**
   * The activity carrying the step out. Temporal records it by this name in every run's history:
   * never rename it.
   */
  activity: string;
  /**
   * The phase of OVERLAPPED_PHASES it runs in, beside the other steps of that phase (in this
   * table's order). A step added to a phase a running build has leaves older runs alone only when
   * their scope never asks for it (they replay it as skipped); otherwise it needs a patch.
   */
  phase: 1 | 2 | 3;
  /** Steps of its phase whose work it needs: it waits for what names theirs while they run. */
  dependsOn?: readonly string[];
  /** The changes it makes for an approved diff: its progress total, and whether it has work. */
  changes: (diff: RestoreDiff) => number;
  /** Which of a call's counts go to which summary counter (several may add to one counter). */
  counts: Partial<Record<OutcomeCount, SummaryCounter>>;
  /**
   * The counters are absent from the summary of a restore that never ran the step (they came after
   * the summary's first fields: a restore of other scopes reports none of them).
   */
  countedOnlyWhenRun?: true;
  /** How the dashboard names the step (ProgressView's `label`). */
  label: string;
}

/**
 * The change steps in the order a restore takes them one after another: deletes in reverse
 * dependency order, then creates and updates forward (steps 4-10 of the restore order), then
 * members' roles (which need the roles made) and bans.
 */
export const CHANGE_STEP_TABLE = {
  DeleteRemovedOverrides: {
    scope: 'permission_overrides',
    activity: 'deleteRemovedOverrides',
    phase: 2,
    changes: (diff) => diff.overrides_to_remove.length,
    counts: { deleted: 'overrides_removed' },
    label: 'Remove overrides',
  },
  DeleteRemovedChannels: {
    scope: 'channels',
    activity: 'deleteRemovedChannels',
    phase: 1,
    changes: (diff) => diff.channels_to_delete.length,
    counts: { deleted: 'channels_deleted' },
    label: 'Delete channels',
  },
  DeleteRemovedRoles: {
    scope: 'roles',
    activity: 'deleteRemovedRoles',
    phase: 1,
    changes: (diff) => diff.roles_to_delete.length,
    counts: { deleted: 'roles_deleted' },
    label: 'Delete roles',
  },
  CreateOrUpdateRoles: {
    scope: 'roles',
    activity: 'createOrUpdateRoles',
    phase: 2,
    changes: (diff) => diff.roles_to_create.length + diff.roles_to_update.length,
    counts: { created: 'roles_created', updated: 'roles_updated' },
    label: 'Create and update roles',
  },
  CreateOrUpdateChannels: {
    scope: 'channels',
    activity: 'createOrUpdateChannels',
    phase: 2,
    dependsOn: ['CreateOrUpdateRoles'],
    changes: (diff) => diff.channels_to_create.length + diff.channels_to_update.length,
    counts: { created: 'channels_created', updated: 'channels_updated' },
    label: 'Create and update channels',
  },
  ApplyPermissionOverrides: {
    scope: 'permission_overrides',
    activity: 'applyPermissionOverrides',
    phase: 2,
    dependsOn: ['CreateOrUpdateRoles', 'CreateOrUpdateChannels'],
    changes: (diff) => diff.overrides_to_apply.length,
    counts: { created: 'overrides_applied', updated: 'overrides_applied' },
    label: 'Set overrides',
  },
  UpdateGuildSettings: {
    scope: 'guild_settings',
    activity: 'updateGuildSettings',
    phase: 3,
    changes: (diff) => Object.keys(diff.guild_settings_diff).length,
    counts: { updated: 'guild_settings_updated' },
    label: 'Update guild settings',
  },
  RestoreMemberRoles: {
    scope: 'member_roles',
    activity: 'restoreMemberRoles',
    phase: 3,
    changes: (diff) => diff.members_to_update,
    counts: { updated: 'members_updated', assigned: 'member_roles_restored' },
    countedOnlyWhenRun: true,
    label: 'Give members their roles back',
  },
  LiftBans: {
    scope: 'bans',
    activity: 'liftBans',
    phase: 3,
    changes: (diff) => diff.bans_to_lift.length,
    counts: { deleted: 'bans_lifted' },
    countedOnlyWhenRun: true,
    label: 'Lift the raid’s bans',
  },
  RestoreEmojis: {
    scope: 'emojis',
    activity: 'restoreEmojis',
    phase: 2,
    // An emoji may be kept to some roles: it names them once they are made.
    dependsOn: ['CreateOrUpdateRoles'],
    changes: (diff) =>
      sizeOf(diff.emojis_to_create) + sizeOf(diff.emojis_to_update) + sizeOf(diff.emojis_to_delete),
    counts: { created: 'emojis_created', updated: 'emojis_updated', deleted: 'emojis_deleted' },
    countedOnlyWhenRun: true,
    label: 'Put back custom emojis',
  },
  RestoreStickers: {
    scope: 'stickers',
    activity: 'restoreStickers',
    phase: 2,
    changes: (diff) =>
      sizeOf(diff.stickers_to_create) + sizeOf(diff.stickers_to_update) + sizeOf(diff.stickers_to_delete),
    counts: { created: 'stickers_created', updated: 'stickers_updated', deleted: 'stickers_deleted' },
    countedOnlyWhenRun: true,
    label: 'Put back stickers',
  },
  RestoreGuildImages: {
    scope: 'guild_images',
    activity: 'restoreGuildImages',
    phase: 3,
    changes: (diff) => sizeOf(diff.guild_images_to_set),
    counts: { updated: 'guild_images_updated' },
    countedOnlyWhenRun: true,
    label: 'Put back the server’s icon and banner',
  },
  RestoreAutoModRules: {
    scope: 'automod',
    activity: 'restoreAutoModRules',
    // After the roles and channels its exemptions and alert channel name.
    phase: 3,
    changes: (diff) =>
      sizeOf(diff.automod_rules_to_create) +
      sizeOf(diff.automod_rules_to_update) +
      sizeOf(diff.automod_rules_to_delete),
    counts: {
      created: 'automod_rules_created',
      updated: 'automod_rules_updated',
      deleted: 'automod_rules_deleted',
    },
    countedOnlyWhenRun: true,
    label: 'Put back AutoMod rules',
  },
  RestoreOnboarding: {
    scope: 'onboarding',
    activity: 'restoreOnboarding',
    // After the roles, channels and emojis the welcome screen and onboarding name.
    phase: 3,
    changes: (diff) =>
      sizeOf(diff.onboarding_prompts_to_create) +
      sizeOf(diff.onboarding_prompts_to_update) +
      sizeOf(diff.onboarding_prompts_to_delete) +
      Math.min(1, sizeOf(diff.onboarding_changes)) +
      Math.min(1, sizeOf(diff.welcome_screen_changes)),
    counts: {
      created: 'onboarding_prompts_created',
      updated: 'onboarding_updated',
      deleted: 'onboarding_prompts_deleted',
    },
    countedOnlyWhenRun: true,
    label: 'Put back the welcome screen and onboarding',
  },
  RestoreWebhooks: {
    scope: 'webhooks',
    activity: 'restoreWebhooks',
    // After the channels the webhooks post in.
    phase: 3,
    changes: (diff) =>
      sizeOf(diff.webhooks_to_create) + sizeOf(diff.webhooks_to_update) + sizeOf(diff.webhooks_to_delete),
    counts: {
      created: 'webhooks_created',
      updated: 'webhooks_updated',
      deleted: 'webhooks_deleted',
    },
    countedOnlyWhenRun: true,
    label: 'Put back webhooks (with new addresses)',
  },
} as const satisfies Record<string, ChangeStepDescription>;

/** A diff section that is present only when its scope was asked for. */
function sizeOf(items: readonly unknown[] | undefined): number {
  return items?.length ?? 0;
}

export type ChangeStep = keyof typeof CHANGE_STEP_TABLE;

/** The change steps, in CHANGE_STEP_TABLE's order. */
export const CHANGE_STEPS = Object.keys(CHANGE_STEP_TABLE) as readonly ChangeStep[];

/** The name Temporal knows each step's activity by. */
export type StepActivityName = (typeof CHANGE_STEP_TABLE)[ChangeStep]['activity'];

/** The table's entry of a step, with the optional fields typed. */
export function describeStep(step: ChangeStep): ChangeStepDescription & {
  activity: StepActivityName;
  dependsOn?: readonly ChangeStep[];
} {
  return CHANGE_STEP_TABLE[step];
}

/** The steps before the change steps (ValidateSnapshot ... PauseLiveSync), by their label. */
export const SETUP_STEP_LABELS = {
  ValidateSnapshot: 'Check the snapshot',
  CreatePreRestoreSnapshot: 'Snapshot the guild as it is',
  PauseLiveSync: 'Pause live sync',
} as const;

/** How the dashboard names a step of the restore (ProgressView's `label`). */
export function stepLabel(name: keyof typeof SETUP_STEP_LABELS | ChangeStep): string {
  return name in SETUP_STEP_LABELS
    ? SETUP_STEP_LABELS[name as keyof typeof SETUP_STEP_LABELS]
    : CHANGE_STEP_TABLE[name as ChangeStep].label;
}
