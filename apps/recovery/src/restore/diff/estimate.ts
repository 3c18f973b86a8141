import { CHANGE_STEPS, type ChangeStep, describeStep } from '../steps/change-steps';
import type { RestoreDiff } from './diff-model';
import { onboardingDiffers } from './onboarding-diff';

/** The platform's common default: requests per second on one rate-limit bucket. */
export const PLATFORM_ROUTE_REQUESTS_PER_SECOND = 5;
/** The platform's common default: requests per second of one bot across all buckets. */
export const PLATFORM_GLOBAL_REQUESTS_PER_SECOND = 50;

/**
 * The platform's creation quotas per guild: about 250 roles and 500 channels per 48 hours.
 * Undocumented (reported in discord-api-docs issue 1480); separate from the count limits (250
 * roles, 500 channels at once). A restore needing more waits for the quota (StepOutcome.pause).
 */
export const CREATION_QUOTAS = { roles: 250, channels: 500 } as const;
export const CREATION_QUOTA_WINDOW_SECONDS = 48 * 60 * 60;

/** Roles and channels the bot created in the guild within the quota's window (earlier restores). */
export interface RecentCreations {
  roles: number;
  channels: number;
}

const NONE_RECENT: RecentCreations = { roles: 0, channels: 0 };

/** Every restore step re-reads the live guild before acting (docs/behaviour.md appendix: restore workflow order). */
export const LIVE_STATE_READS = [
  'GET /guilds/:id',
  'GET /guilds/:id/roles',
  'GET /guilds/:id/channels',
  'GET /guilds/:id/members/:id',
] as const;

export const ROUTE = {
  /** Role creates and the batched role reorder share one bucket. */
  roleCollection: 'POST|PATCH /guilds/:id/roles',
  roleUpdate: 'PATCH /guilds/:id/roles/:id',
  roleDelete: 'DELETE /guilds/:id/roles/:id',
  channelCreate: 'POST /guilds/:id/channels',
  channelPositions: 'PATCH /guilds/:id/channels',
  guildSettings: 'PATCH /guilds/:id',
  /** Channel routes are bucketed per channel, so each channel has its own bucket. */
  channelUpdate: (channelId: string) => `PATCH /channels/${channelId}`,
  channelDelete: (channelId: string) => `DELETE /channels/${channelId}`,
  overrides: (channelId: string) => `PUT|DELETE /channels/${channelId}/permissions/:id`,
  /** One call per member, carrying all the roles they get back. */
  memberUpdate: 'PATCH /guilds/:id/members/:id',
  banDelete: 'DELETE /guilds/:id/bans/:id',
  emojiCreate: 'POST /guilds/:id/emojis',
  emojiChange: 'PATCH|DELETE /guilds/:id/emojis/:id',
  stickerCreate: 'POST /guilds/:id/stickers',
  stickerChange: 'PATCH|DELETE /guilds/:id/stickers/:id',
  welcomeScreen: 'PATCH /guilds/:id/welcome-screen',
  onboarding: 'PUT /guilds/:id/onboarding',
} as const;

export interface RestoreCallEstimate {
  /** Platform requests the restore makes, reads included. */
  calls: number;
  /** Requests per rate-limit bucket. */
  perRoute: Record<string, number>;
}

export function estimateRestoreCalls(diff: RestoreDiff): RestoreCallEstimate {
  const perRoute: Record<string, number> = {};
  const add = (route: string, count = 1) => {
    if (count > 0) perRoute[route] = (perRoute[route] ?? 0) + count;
  };
  add(ROUTE.roleCollection, diff.roles_to_create.length);
  if (rolesNeedReorder(diff)) add(ROUTE.roleCollection);
  add(ROUTE.roleUpdate, diff.roles_to_update.length);
  add(ROUTE.roleDelete, diff.roles_to_delete.length);
  add(ROUTE.channelCreate, diff.channels_to_create.length);
  if (channelsNeedReorder(diff)) add(ROUTE.channelPositions);
  for (const update of diff.channels_to_update) add(ROUTE.channelUpdate(update.current.id));
  for (const deleted of diff.channels_to_delete) add(ROUTE.channelDelete(deleted.id));
  for (const override of [...diff.overrides_to_apply, ...diff.overrides_to_remove]) {
    add(ROUTE.overrides(override.channel_id));
  }
  if (Object.keys(diff.guild_settings_diff).length > 0) add(ROUTE.guildSettings);
  add(ROUTE.memberUpdate, diff.members_to_update);
  add(ROUTE.banDelete, diff.bans_to_lift.length);
  add(ROUTE.emojiCreate, diff.emojis_to_create?.length ?? 0);
  add(ROUTE.emojiChange, (diff.emojis_to_update?.length ?? 0) + (diff.emojis_to_delete?.length ?? 0));
  add(ROUTE.stickerCreate, diff.stickers_to_create?.length ?? 0);
  add(ROUTE.stickerChange, (diff.stickers_to_update?.length ?? 0) + (diff.stickers_to_delete?.length ?? 0));
  if ((diff.guild_images_to_set?.length ?? 0) > 0) add(ROUTE.guildSettings);
  if ((diff.welcome_screen_changes?.length ?? 0) > 0) add(ROUTE.welcomeScreen);
  if (onboardingDiffers(diff)) add(ROUTE.onboarding);
  const steps = stepsWithWork(diff);
  for (const read of LIVE_STATE_READS) add(read, steps);
  const calls = Object.values(perRoute).reduce((sum, count) => sum + count, 0);
  return { calls, perRoute };
}

/** Seconds the calls take at the platform's limits: the busier of the global and the worst bucket. */
export function estimateSeconds({ calls, perRoute }: RestoreCallEstimate): number {
  const busiestBucket = Math.max(0, ...Object.values(perRoute));
  return Math.max(
    calls / PLATFORM_GLOBAL_REQUESTS_PER_SECOND,
    busiestBucket / PLATFORM_ROUTE_REQUESTS_PER_SECOND,
  );
}

/**
 * Seconds the restore waits for the creation quotas: a whole window for each quota's worth of
 * creations past what is left of it (`recent` used some). Coarse the other way too: the platform
 * may free the quota sooner, as its window began with the first of the recent creations.
 */
export function quotaWaitSeconds(
  diff: RestoreDiff,
  recent: RecentCreations = NONE_RECENT,
): { seconds: number; quota: 'roles' | 'channels' | null } {
  const windows = (needed: number, used: number, quota: number) =>
    needed === 0 ? 0 : Math.max(0, Math.ceil((used + needed - quota) / quota));
  const roles = windows(diff.roles_to_create.length, recent.roles, CREATION_QUOTAS.roles);
  const channels = windows(diff.channels_to_create.length, recent.channels, CREATION_QUOTAS.channels);
  if (roles === 0 && channels === 0) return { seconds: 0, quota: null };
  return {
    seconds: Math.max(roles, channels) * CREATION_QUOTA_WINDOW_SECONDS,
    quota: roles >= channels ? 'roles' : 'channels',
  };
}

export function estimateDuration(diff: RestoreDiff, recent: RecentCreations = NONE_RECENT): string {
  const wait = quotaWaitSeconds(diff, recent);
  const text = describeDuration(estimateSeconds(estimateRestoreCalls(diff)) + wait.seconds);
  if (!wait.quota) return text;
  const quota = wait.quota === 'roles' ? 'role' : 'channel';
  return `${text}, most of it waiting for the platform's ${quota} creation quota`;
}

/** Deliberately coarse: the real time depends on retries and the platform's actual buckets. */
export function describeDuration(seconds: number): string {
  const whole = Math.ceil(seconds);
  if (whole < 10) return 'under 10 seconds';
  if (whole < 60) return `about ${whole} seconds`;
  const minutes = Math.ceil(whole / 60);
  if (minutes < 90) return minutes === 1 ? 'about 1 minute' : `about ${minutes} minutes`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `about ${hours} hours`;
  return `about ${Math.round(hours / 24)} days`;
}

function rolesNeedReorder(diff: RestoreDiff): boolean {
  return (
    diff.roles_to_create.length > 0 ||
    diff.roles_to_update.some((update) => update.changed_fields.includes('position'))
  );
}

function channelsNeedReorder(diff: RestoreDiff): boolean {
  return (
    diff.channels_to_create.length > 0 ||
    diff.channels_to_update.some((update) => update.changed_fields.includes('position'))
  );
}

/** The workflow steps (docs/behaviour.md appendix) that have something to do in this diff. */
function stepsWithWork(diff: RestoreDiff): number {
  return CHANGE_STEPS.filter((step) => describeStep(step).changes(diff) > 0).length;
}

/** The changes each step of the workflow makes for this diff: the progress totals of a run. */
export function changesPerStep(diff: RestoreDiff): Record<ChangeStep, number> {
  return Object.fromEntries(CHANGE_STEPS.map((step) => [step, describeStep(step).changes(diff)])) as Record<
    ChangeStep,
    number
  >;
}
