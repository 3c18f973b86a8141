import type { ChangeStep } from '../workflows/restore-contract';
import type { RestoreDiff } from './diff-model';

/** The platform's common default: requests per second on one rate-limit bucket. */
export const PLATFORM_ROUTE_REQUESTS_PER_SECOND = 5;
/** The platform's common default: requests per second of one bot across all buckets. */
export const PLATFORM_GLOBAL_REQUESTS_PER_SECOND = 50;

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

export function estimateDuration(diff: RestoreDiff): string {
  return describeDuration(estimateSeconds(estimateRestoreCalls(diff)));
}

/** Deliberately coarse: the real time depends on retries and the platform's actual buckets. */
export function describeDuration(seconds: number): string {
  const whole = Math.ceil(seconds);
  if (whole < 10) return 'under 10 seconds';
  if (whole < 60) return `about ${whole} seconds`;
  const minutes = Math.ceil(whole / 60);
  return minutes === 1 ? 'about 1 minute' : `about ${minutes} minutes`;
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
  const steps = [
    diff.overrides_to_remove.length,
    diff.channels_to_delete.length,
    diff.roles_to_delete.length,
    diff.roles_to_create.length + diff.roles_to_update.length,
    diff.channels_to_create.length + diff.channels_to_update.length,
    diff.overrides_to_apply.length,
    Object.keys(diff.guild_settings_diff).length,
    diff.members_to_update,
    diff.bans_to_lift.length,
  ];
  return steps.filter((work) => work > 0).length;
}

/** The changes each step of the workflow makes for this diff: the progress totals of a run. */
export function changesPerStep(diff: RestoreDiff): Record<ChangeStep, number> {
  return {
    DeleteRemovedOverrides: diff.overrides_to_remove.length,
    DeleteRemovedChannels: diff.channels_to_delete.length,
    DeleteRemovedRoles: diff.roles_to_delete.length,
    CreateOrUpdateRoles: diff.roles_to_create.length + diff.roles_to_update.length,
    CreateOrUpdateChannels: diff.channels_to_create.length + diff.channels_to_update.length,
    ApplyPermissionOverrides: diff.overrides_to_apply.length,
    UpdateGuildSettings: Object.keys(diff.guild_settings_diff).length,
    RestoreMemberRoles: diff.members_to_update,
    LiftBans: diff.bans_to_lift.length,
  };
}
