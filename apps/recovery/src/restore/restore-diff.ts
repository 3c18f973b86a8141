import type { RestoreScope } from '@lib/contracts';
import type { SnapshotPayload } from '../snapshots/snapshot-payload';
import { emptyChannelSection, diffChannels } from './diff/channel-diff';
import type { DiffInput, RestoreDiff } from './diff/diff-model';
import { diffAutoModRules } from './diff/automod-diff';
import { estimateDuration } from './diff/estimate';
import { fitForumEmojis } from './diff/forum-fields';
import { diffEmojis, diffGuildImages, diffStickers } from './diff/expression-diff';
import { clampedInDiff, fitToLiveGuild } from './diff/guild-fit';
import { LiveLookup } from './diff/live-lookup';
import { emptyMemberSection, type MemberRoleUpdate, planBans, planMemberRoles } from './diff/member-diff';
import { bySkippedOrder } from './diff/ordering';
import { emptyOverrideSection, OverridePlan, type PendingCreates } from './diff/override-plan';
import { diffRoles, emptyRoleSection } from './diff/role-diff';
import { diffWebhooks } from './diff/webhook-diff';
import { diffGuildSettings } from './diff/settings-diff';
import { diffWelcomeFlow } from './diff/onboarding-diff';

/**
 * The restore diff (docs/behaviour.md §4.1): what a restore of `input.target` into `input.live` creates, updates
 * and deletes, scope by scope, and what it must skip and why. One concern per file in ./diff: the
 * model, id resolution, matching, roles, channels, permission overrides, settings, ordering, the
 * hash and the duration estimate.
 */
export * from './diff/diff-model';
export { RESTORED_CHANNEL_FIELDS } from './diff/channel-diff';
export { forumFieldsToWrite, namesCustomEmojis, tagReplacements } from './diff/forum-fields';
export { restoreDiffHash } from './diff/diff-hash';
export { mayGrant, RESTORED_ROLE_FIELDS, ROLE_ICON_FIELD } from './diff/role-diff';
export { overrideRefusal } from './diff/override-plan';
export * from './diff/estimate';
export { SnapshotIdResolution } from './diff/id-resolution';
export { MEMBER_SAMPLE_SIZE, type MemberRoleUpdate } from './diff/member-diff';
export { RESTORE_SCOPES, type RestoreScope } from '@lib/contracts';

export function computeRestoreDiff(input: DiffInput): RestoreDiff {
  return planRestore(input).diff;
}

/**
 * The diff, and each member's update behind its members' roles section (the roles step's own
 * roles still to be made named by their snapshot ids), from one pass over the members. The diff
 * is of the snapshot fitted to the live guild's limits (`target`: what the steps send).
 */
export function planRestore(planned: DiffInput): {
  diff: RestoreDiff;
  memberUpdates: MemberRoleUpdate[];
  target: SnapshotPayload;
} {
  const fit = fitToLiveGuild(planned.target, planned.live.guild);
  // Forum emojis as they live now, so a forum is compared and written with the guild's own.
  const forums = planned.scope.includes('channels')
    ? fitForumEmojis(fit.target.channels, planned.ids)
    : { channels: fit.target.channels, clamped: [] };
  fit.target = { ...fit.target, channels: forums.channels };
  fit.clamped.push(...forums.clamped);
  const input: DiffInput = { ...planned, target: fit.target };
  const lookup = new LiveLookup(input);
  const inScope = (scope: RestoreScope) => input.scope.includes(scope);
  const roles = inScope('roles') ? diffRoles(input, lookup) : emptyRoleSection();
  const channels = inScope('channels') ? diffChannels(input, lookup) : emptyChannelSection();
  const pending: PendingCreates = {
    roles: new Set(roles.roles_to_create.map((role) => role.id)),
    channels: new Set(channels.channels_to_create.map((channel) => channel.id)),
  };
  // A channel is created with its overrides in place (never briefly open to everyone), so a
  // restore of channels without permission_overrides still sets those: the preview shows them.
  const overrides = inScope('permission_overrides')
    ? new OverridePlan(input, lookup, pending).result()
    : inScope('channels')
      ? new OverridePlan(input, lookup, pending, pending.channels).result()
      : emptyOverrideSection();
  // Members get back roles this restore makes too: the roles to create count as there.
  const members = inScope('member_roles')
    ? planMemberRoles(input, lookup, pending.roles)
    : { updates: [], section: emptyMemberSection() };
  const bans = inScope('bans') ? planBans(input) : { bans_to_lift: [], skipped: [] };
  const { skipped: emojisSkipped = [], ...emojis } = inScope('emojis')
    ? diffEmojis(input, lookup, pending.roles)
    : {};
  const { skipped: stickersSkipped = [], ...stickers } = inScope('stickers') ? diffStickers(input) : {};
  const { skipped: imagesSkipped = [], ...images } = inScope('guild_images') ? diffGuildImages(input) : {};
  const { skipped: automodSkipped = [], ...automod } = inScope('automod')
    ? diffAutoModRules(input, lookup, pending)
    : {};
  // The welcome screen and onboarding name roles, channels and emojis this restore may make.
  const { skipped: onboardingSkipped = [], ...onboarding } = inScope('onboarding')
    ? diffWelcomeFlow(input, lookup, {
        ...pending,
        emojis: new Set(
          ('emojis_to_create' in emojis ? emojis.emojis_to_create : []).map((emoji) => emoji.id),
        ),
      })
    : {};
  const { skipped: webhooksSkipped = [], ...webhooks } = inScope('webhooks')
    ? diffWebhooks(input, lookup, pending)
    : {};
  const diff: RestoreDiff = {
    roles_to_create: roles.roles_to_create,
    roles_to_update: roles.roles_to_update,
    roles_to_delete: roles.roles_to_delete,
    channels_to_create: channels.channels_to_create,
    channels_to_update: channels.channels_to_update,
    channels_to_delete: channels.channels_to_delete,
    overrides_to_apply: overrides.overrides_to_apply,
    overrides_to_remove: overrides.overrides_to_remove,
    guild_settings_diff: inScope('guild_settings') ? diffGuildSettings(input, lookup) : {},
    member_roles_to_restore: members.section.member_roles_to_restore,
    members_to_update: members.section.members_to_update,
    members_absent: members.section.members_absent,
    bans_to_lift: bans.bans_to_lift,
    ...emojis,
    ...stickers,
    ...images,
    ...automod,
    ...onboarding,
    ...webhooks,
    skipped: [
      ...roles.skipped,
      ...overrides.skipped,
      ...members.section.skipped,
      ...bans.skipped,
      ...emojisSkipped,
      ...stickersSkipped,
      ...imagesSkipped,
      ...automodSkipped,
      ...onboardingSkipped,
      ...webhooksSkipped,
    ].sort(bySkippedOrder),
    clamped: clampedInDiff(fit.clamped, {
      created: [
        ...roles.roles_to_create.map(({ id }) => ({ scope: 'roles' as const, id })),
        ...channels.channels_to_create.map(({ id }) => ({ scope: 'channels' as const, id })),
      ],
      updated: [
        ...roles.roles_to_update.map(({ target, changed_fields }) => ({
          scope: 'roles' as const,
          id: target.id,
          changed_fields,
        })),
        ...channels.channels_to_update.map(({ target, changed_fields }) => ({
          scope: 'channels' as const,
          id: target.id,
          changed_fields,
        })),
      ],
    }),
    estimated_duration: '',
  };
  return {
    diff: { ...diff, estimated_duration: estimateDuration(diff) },
    memberUpdates: members.updates,
    target: fit.target,
  };
}
