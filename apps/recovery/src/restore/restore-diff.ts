// node:crypto makes this module unfit for Temporal's workflow sandbox: workflows import its types only.
import { createHash } from 'node:crypto';
import {
  CHANNEL_TYPE,
  type GuildSettings,
  type GuildState,
  PERMISSION,
  type PermissionOverwrite,
  type PlatformChannel,
  type PlatformRole,
} from '@lib/chat-platform';
import { RESTORE_SCOPES, type RestoreScope } from '@lib/contracts';
import canonicalize from 'canonicalize';
import type { ChangeStep } from './workflows/restore-contract';

export { RESTORE_SCOPES, type RestoreScope } from '@lib/contracts';

export type IdKind = 'role' | 'channel';

/**
 * Where a snapshot's platform id lives now. A role or channel the restore creates anew gets a new
 * platform id; `replacements` remembers original -> replacement per guild, so overwrites,
 * parents and later previews follow it (chains are followed: X -> Y -> Z).
 */
export interface IdResolution {
  /** The live id of a snapshot item, or undefined if neither it nor a replacement exists live. */
  resolve(kind: IdKind, snapshotId: string): string | undefined;
}

/** A role as the diff shows it; `color` is `#rrggbb` (spec §2.2). */
export interface RoleItem {
  id: string;
  name: string;
  color: string;
  permissions: string;
  hoist: boolean;
  mentionable: boolean;
  position: number;
  managed: boolean;
  unicode_emoji: string | null;
}

export type ChannelItem = Pick<
  PlatformChannel,
  | 'id'
  | 'type'
  | 'name'
  | 'position'
  | 'parent_id'
  | 'topic'
  | 'nsfw'
  | 'rate_limit_per_user'
  | 'bitrate'
  | 'user_limit'
>;

export interface OverrideItem {
  /** Snapshot-space ids in `overrides_to_apply`, live ids in `overrides_to_remove`. */
  channel_id: string;
  channel_name: string;
  /** The role's or member's id. */
  id: string;
  type: 'role' | 'member';
  /** The role's name, or null for a member. */
  target_name: string | null;
  allow: string;
  deny: string;
}

export interface UpdateItem<T> {
  /** Live (ids are live ids). */
  current: T;
  /** From the snapshot (ids are snapshot ids). */
  target: T;
  changed_fields: string[];
}

/** Something the restore will not attempt, with why (e.g. a role above the bot's highest role). */
export interface SkippedItem {
  scope: RestoreScope;
  id: string;
  name: string;
  reason: string;
}

export type RestorableSetting = Exclude<keyof GuildSettings, 'id' | 'owner_id' | 'icon'>;

/** Spec §2.2. Items are sorted so equal guilds give byte-equal diffs (and equal hashes). */
export interface RestoreDiff {
  roles_to_create: RoleItem[];
  roles_to_update: UpdateItem<RoleItem>[];
  roles_to_delete: { id: string; name: string }[];
  channels_to_create: ChannelItem[];
  channels_to_update: UpdateItem<ChannelItem>[];
  channels_to_delete: { id: string; name: string; type: number }[];
  overrides_to_apply: OverrideItem[];
  overrides_to_remove: OverrideItem[];
  guild_settings_diff: Partial<Record<RestorableSetting, { current: unknown; target: unknown }>>;
  skipped: SkippedItem[];
  estimated_duration: string;
}

/** What the bot may do in the live guild: it acts only below its highest role, granting what it holds. */
export interface BotStanding {
  highestRolePosition: number;
  permissions: bigint;
  isOwner: boolean;
}

export interface DiffInput {
  target: GuildState;
  live: GuildState;
  scope: readonly RestoreScope[];
  ids: IdResolution;
  bot: BotStanding;
}

/** Why an item is in `skipped`. */
export const SKIP_REASON = {
  managedRole: 'managed by an integration; it comes back when the integration is re-added',
  aboveBot: 'above the bot’s highest role',
  permissionsNotHeld: 'grants permissions the bot does not hold',
  channelNotRestored: 'its channel is not restored',
  roleNotRestored: 'its role is not restored',
} as const;

/** A role or channel the restore recreated under a new platform id. */
export interface IdReplacement {
  kind: IdKind;
  original_id: string;
  replacement_id: string;
}

/** Resolves snapshot ids against one live guild and the guild's recorded replacements. */
export class SnapshotIdResolution implements IdResolution {
  private readonly liveIds: Record<IdKind, ReadonlySet<string>>;
  private readonly replacements: Record<IdKind, Map<string, string>> = {
    role: new Map(),
    channel: new Map(),
  };

  constructor(live: GuildState, replacements: Iterable<IdReplacement>) {
    this.liveIds = {
      role: new Set(live.roles.map((role) => role.id)),
      channel: new Set(live.channels.map((channel) => channel.id)),
    };
    for (const { kind, original_id, replacement_id } of replacements) {
      this.replacements[kind].set(original_id, replacement_id);
    }
  }

  resolve(kind: IdKind, snapshotId: string): string | undefined {
    const live = this.liveIds[kind];
    const chain = this.replacements[kind];
    // A replacement can itself be deleted and replaced again, so the chain is walked to the end;
    // `seen` stops a corrupt, circular record from looping forever.
    const seen = new Set<string>();
    for (let id: string | undefined = snapshotId; id !== undefined && !seen.has(id); id = chain.get(id)) {
      if (live.has(id)) return id;
      seen.add(id);
    }
    return undefined;
  }
}

export function computeRestoreDiff(input: DiffInput): RestoreDiff {
  const lookup = new LiveLookup(input);
  const inScope = (scope: RestoreScope) => input.scope.includes(scope);
  const roles = inScope('roles') ? diffRoles(input, lookup) : emptyRoleSection();
  const channels = inScope('channels') ? diffChannels(input, lookup) : emptyChannelSection();
  const pending: PendingCreates = {
    roles: new Set(roles.roles_to_create.map((role) => role.id)),
    channels: new Set(channels.channels_to_create.map((channel) => channel.id)),
  };
  // A channel is created with its overwrites in place (never briefly open to everyone), so a
  // restore of channels without permission_overrides still sets those: the preview shows them.
  const overrides = inScope('permission_overrides')
    ? new OverridePlan(input, lookup, pending).result()
    : inScope('channels')
      ? new OverridePlan(input, lookup, pending, pending.channels).result()
      : emptyOverrideSection();
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
    skipped: [...roles.skipped, ...overrides.skipped].sort(bySkippedOrder),
    estimated_duration: '',
  };
  return { ...diff, estimated_duration: estimateDuration(diff) };
}

/**
 * The approved-diff fingerprint (ARCHITECTURE "diff hash"): SHA-256 over the RFC 8785 canonical
 * JSON of the diff. The duration estimate is left out so that tuning the estimate never
 * invalidates a preview the user already approved.
 */
export function restoreDiffHash(diff: RestoreDiff): string {
  const { estimated_duration: _estimate, ...hashed } = diff;
  const canonical = canonicalize(hashed);
  if (canonical === undefined) throw new Error('a restore diff has no canonical JSON form');
  return `sha256:${createHash('sha256').update(canonical, 'utf8').digest('hex')}`;
}

export function roleItem(role: PlatformRole): RoleItem {
  return {
    id: role.id,
    name: role.name,
    color: `#${role.color.toString(16).padStart(6, '0')}`,
    permissions: role.permissions,
    hoist: role.hoist,
    mentionable: role.mentionable,
    position: role.position,
    managed: role.managed,
    unicode_emoji: role.unicode_emoji,
  };
}

export function channelItem(channel: PlatformChannel): ChannelItem {
  return {
    id: channel.id,
    type: channel.type,
    name: channel.name,
    position: channel.position,
    parent_id: channel.parent_id,
    topic: channel.topic,
    nsfw: channel.nsfw,
    rate_limit_per_user: channel.rate_limit_per_user,
    bitrate: channel.bitrate,
    user_limit: channel.user_limit,
  };
}

// ---------------------------------------------------------------------------------------------
// Duration estimate

/** The platform's common default: requests per second on one rate-limit bucket. */
export const PLATFORM_ROUTE_REQUESTS_PER_SECOND = 5;
/** The platform's common default: requests per second of one bot across all buckets. */
export const PLATFORM_GLOBAL_REQUESTS_PER_SECOND = 50;

/** Every restore step re-reads the live guild before acting (spec appendix: restore workflow order). */
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

/** The workflow steps (spec appendix) that have something to do in this diff. */
function stepsWithWork(diff: RestoreDiff): number {
  const steps = [
    diff.overrides_to_remove.length,
    diff.channels_to_delete.length,
    diff.roles_to_delete.length,
    diff.roles_to_create.length + diff.roles_to_update.length,
    diff.channels_to_create.length + diff.channels_to_update.length,
    diff.overrides_to_apply.length,
    Object.keys(diff.guild_settings_diff).length,
  ];
  return steps.filter((work) => work > 0).length;
}

// ---------------------------------------------------------------------------------------------
// Matching

interface Pair<T> {
  target: T;
  live: T;
}

/** Live items reached from snapshot ids; a resolver's answer counts only if that item is live. */
class LiveLookup {
  private readonly roles: Map<string, PlatformRole>;
  private readonly channels: Map<string, PlatformChannel>;

  constructor(private readonly input: DiffInput) {
    this.roles = new Map(input.live.roles.map((role) => [role.id, role]));
    this.channels = new Map(input.live.channels.map((channel) => [channel.id, channel]));
  }

  role(snapshotId: string): PlatformRole | undefined {
    // @everyone carries the guild's id and exists for as long as the guild does.
    const id =
      snapshotId === this.input.target.guild.id
        ? this.input.live.guild.id
        : this.input.ids.resolve('role', snapshotId);
    return id === undefined ? undefined : this.roles.get(id);
  }

  liveRole(liveId: string): PlatformRole | undefined {
    return this.roles.get(liveId);
  }

  channel(snapshotId: string): PlatformChannel | undefined {
    const id = this.input.ids.resolve('channel', snapshotId);
    return id === undefined ? undefined : this.channels.get(id);
  }

  /** A snapshot channel reference (parent, setting) as a live id: null stays null. */
  channelId(snapshotId: string | null): string | null | undefined {
    return snapshotId === null ? null : this.channel(snapshotId)?.id;
  }
}

/**
 * The pairs whose rank in the snapshot's order differs from their rank in the live order. Ranks,
 * not position numbers: deleting one item renumbers everything above it without moving anything.
 */
function reordered<T, P extends Pair<T>>(pairs: readonly P[], order: (a: T, b: T) => number): Set<P> {
  const byTarget = [...pairs].sort((a, b) => order(a.target, b.target));
  const byLive = [...pairs].sort((a, b) => order(a.live, b.live));
  return new Set(byTarget.filter((pair, rank) => byLive[rank] !== pair));
}

// ---------------------------------------------------------------------------------------------
// Roles

type RoleSection = Pick<RestoreDiff, 'roles_to_create' | 'roles_to_update' | 'roles_to_delete' | 'skipped'>;

const ROLE_FIELDS = ['name', 'color', 'permissions', 'hoist', 'mentionable', 'unicode_emoji'] as const;

function emptyRoleSection(): RoleSection {
  return { roles_to_create: [], roles_to_update: [], roles_to_delete: [], skipped: [] };
}

function diffRoles(input: DiffInput, lookup: LiveLookup): RoleSection {
  const section = emptyRoleSection();
  const everyoneId = input.target.guild.id;
  const pairs: Pair<PlatformRole>[] = [];
  for (const role of [...input.target.roles].sort(byPosition)) {
    const live = lookup.role(role.id);
    if (live) pairs.push({ target: role, live });
    else if (role.id !== everyoneId) planRoleCreate(role, input.bot, section);
  }
  // @everyone sits at 0 below everything and cannot move.
  const moved = reordered(
    pairs.filter((pair) => pair.target.id !== everyoneId),
    byPosition,
  );
  for (const pair of pairs) planRoleUpdate(pair, moved.has(pair), input.bot, section);
  const matched = new Set(pairs.map((pair) => pair.live.id));
  for (const role of input.live.roles) {
    if (!matched.has(role.id)) planRoleDelete(role, input, section);
  }
  section.roles_to_delete.sort((a, b) => compareIds(a.id, b.id));
  return section;
}

function planRoleCreate(role: PlatformRole, bot: BotStanding, section: RoleSection): void {
  const refusal = roleCreateRefusal(role, bot);
  if (refusal) section.skipped.push(skippedRole(role, refusal));
  else section.roles_to_create.push(roleItem(role));
}

function roleCreateRefusal(role: PlatformRole, bot: BotStanding): string | undefined {
  if (role.managed) return SKIP_REASON.managedRole;
  return mayGrant(bot, BigInt(role.permissions)) ? undefined : SKIP_REASON.permissionsNotHeld;
}

function planRoleUpdate(
  pair: Pair<PlatformRole>,
  moved: boolean,
  bot: BotStanding,
  section: RoleSection,
): void {
  // An integration owns its role; the restore leaves it exactly as the integration keeps it.
  if (pair.target.managed || pair.live.managed) return;
  const changed = changedRoleFields(pair, moved);
  if (changed.length === 0) return;
  const refusal = roleUpdateRefusal(pair, bot);
  if (refusal) section.skipped.push(skippedRole(pair.target, refusal));
  else
    section.roles_to_update.push({
      current: roleItem(pair.live),
      target: roleItem(pair.target),
      changed_fields: changed,
    });
}

/** `icon` is left out: it is an image hash, and the image itself is not in the snapshot. */
function changedRoleFields(pair: Pair<PlatformRole>, moved: boolean): string[] {
  const target = roleItem(pair.target);
  const live = roleItem(pair.live);
  const changed: string[] = ROLE_FIELDS.filter((field) =>
    field === 'permissions'
      ? BigInt(target.permissions) !== BigInt(live.permissions)
      : target[field] !== live[field],
  );
  if (moved) changed.push('position');
  return changed;
}

function roleUpdateRefusal({ target, live }: Pair<PlatformRole>, bot: BotStanding): string | undefined {
  if (!mayManage(bot, live.position)) return SKIP_REASON.aboveBot;
  const added = BigInt(target.permissions) & ~BigInt(live.permissions);
  return mayGrant(bot, added) ? undefined : SKIP_REASON.permissionsNotHeld;
}

function planRoleDelete(role: PlatformRole, input: DiffInput, section: RoleSection): void {
  // @everyone cannot be deleted; an integration's role leaves with its integration.
  if (role.id === input.live.guild.id || role.managed) return;
  if (mayManage(input.bot, role.position)) section.roles_to_delete.push({ id: role.id, name: role.name });
  else section.skipped.push(skippedRole(role, SKIP_REASON.aboveBot));
}

function skippedRole(role: PlatformRole, reason: string): SkippedItem {
  return { scope: 'roles', id: role.id, name: role.name, reason };
}

/** The platform lets a bot act only strictly below its own highest role (the owner anywhere). */
function mayManage(bot: BotStanding, livePosition: number): boolean {
  return bot.isOwner || livePosition < bot.highestRolePosition;
}

/** A bot can grant only bits it holds; ADMINISTRATOR holds them all. */
function mayGrant(bot: BotStanding, bits: bigint): boolean {
  const administrator = (bot.permissions & PERMISSION.ADMINISTRATOR) === PERMISSION.ADMINISTRATOR;
  return bot.isOwner || administrator || (bits & ~bot.permissions) === 0n;
}

// ---------------------------------------------------------------------------------------------
// Channels

type ChannelSection = Pick<RestoreDiff, 'channels_to_create' | 'channels_to_update' | 'channels_to_delete'>;

interface ChannelPair extends Pair<PlatformChannel> {
  /** The snapshot parent as a live id; undefined when it is not live (yet). */
  parent: string | null | undefined;
}

const CHANNEL_FIELDS = [
  'name',
  'type',
  'topic',
  'nsfw',
  'rate_limit_per_user',
  'bitrate',
  'user_limit',
] as const;

function emptyChannelSection(): ChannelSection {
  return { channels_to_create: [], channels_to_update: [], channels_to_delete: [] };
}

function diffChannels(input: DiffInput, lookup: LiveLookup): ChannelSection {
  const section = emptyChannelSection();
  const pairs: ChannelPair[] = [];
  for (const channel of [...input.target.channels].sort(channelOrder)) {
    const live = lookup.channel(channel.id);
    if (live) pairs.push({ target: channel, live, parent: lookup.channelId(channel.parent_id) });
    else section.channels_to_create.push(channelItem(channel));
  }
  const moved = movedChannels(pairs);
  for (const pair of pairs) {
    const changed = changedChannelFields(pair, moved.has(pair));
    if (changed.length === 0) continue;
    section.channels_to_update.push({
      current: channelItem(pair.live),
      target: channelItem(pair.target),
      changed_fields: changed,
    });
  }
  const matched = new Set(pairs.map((pair) => pair.live.id));
  section.channels_to_delete = input.live.channels
    .filter((channel) => !matched.has(channel.id))
    .map(({ id, name, type }) => ({ id, name, type }))
    .sort((a, b) => compareIds(a.id, b.id));
  return section;
}

/** Categories are ordered among categories, other channels among those of the same parent. */
function siblingList(type: number, parentId: string | null | undefined): string {
  if (type === CHANNEL_TYPE.category) return 'categories';
  return parentId === undefined ? 'unresolved parent' : `parent ${parentId ?? 'none'}`;
}

/**
 * Order counts only among siblings, so ranks are compared per sibling list, and only for channels
 * that stay in their list (one leaving a list would otherwise shift the ranks of those it left).
 */
function movedChannels(pairs: readonly ChannelPair[]): Set<ChannelPair> {
  const lists = new Map<string, ChannelPair[]>();
  for (const pair of pairs) {
    const list = siblingList(pair.live.type, pair.live.parent_id);
    if (siblingList(pair.target.type, pair.parent) !== list) continue;
    lists.set(list, [...(lists.get(list) ?? []), pair]);
  }
  const moved = new Set<ChannelPair>();
  for (const list of lists.values()) for (const pair of reordered(list, byPosition)) moved.add(pair);
  return moved;
}

function changedChannelFields(pair: ChannelPair, moved: boolean): string[] {
  const changed: string[] = CHANNEL_FIELDS.filter((field) => pair.target[field] !== pair.live[field]);
  const reparented = pair.parent !== pair.live.parent_id;
  if (reparented) changed.push('parent_id');
  // A channel that changes parent has to be placed among its new siblings as well.
  if (reparented || moved) changed.push('position');
  return changed;
}

/** Categories first, so a restore creating them in list order has every parent before its children. */
function channelOrder(a: PlatformChannel, b: PlatformChannel): number {
  const category = (channel: PlatformChannel) => Number(channel.type === CHANNEL_TYPE.category);
  return category(b) - category(a) || byPosition(a, b);
}

// ---------------------------------------------------------------------------------------------
// Permission overrides

type OverrideSection = Pick<RestoreDiff, 'overrides_to_apply' | 'overrides_to_remove' | 'skipped'>;

/** Snapshot ids of the roles and channels this same diff creates. */
interface PendingCreates {
  roles: ReadonlySet<string>;
  channels: ReadonlySet<string>;
}

function emptyOverrideSection(): OverrideSection {
  return { overrides_to_apply: [], overrides_to_remove: [], skipped: [] };
}

const overwriteKey = (channelId: string, type: string, targetId: string) =>
  `${channelId} ${type} ${targetId}`;

class OverridePlan {
  private readonly section = emptyOverrideSection();
  private readonly snapshotRoles: Map<string, PlatformRole>;
  private readonly snapshotChannels: Map<string, PlatformChannel>;
  private readonly liveOverwrites: Map<string, PermissionOverwrite>;
  /** Live overwrites the snapshot has a counterpart for; the others on its channels go. */
  private readonly kept = new Set<string>();

  /**
   * `onlyChannels`: plan just the overwrites of these snapshot channels (those created with the
   * channel), and remove nothing.
   */
  constructor(
    private readonly input: DiffInput,
    private readonly lookup: LiveLookup,
    private readonly pending: PendingCreates,
    private readonly onlyChannels?: ReadonlySet<string>,
  ) {
    this.snapshotRoles = new Map(input.target.roles.map((role) => [role.id, role]));
    this.snapshotChannels = new Map(input.target.channels.map((channel) => [channel.id, channel]));
    this.liveOverwrites = new Map(
      input.live.permission_overrides.map((o) => [overwriteKey(o.channel_id, o.type, o.id), o]),
    );
  }

  result(): OverrideSection {
    const only = this.onlyChannels;
    for (const overwrite of this.input.target.permission_overrides) {
      if (!only || only.has(overwrite.channel_id)) this.plan(overwrite);
    }
    this.section.overrides_to_apply.sort(byOverrideOrder);
    this.section.overrides_to_remove = only ? [] : this.removals().sort(byOverrideOrder);
    return this.section;
  }

  private plan(overwrite: PermissionOverwrite): void {
    const channel = this.lookup.channel(overwrite.channel_id);
    // Members are not restored, so a member overwrite keeps its id.
    const targetId = overwrite.type === 'role' ? this.lookup.role(overwrite.id)?.id : overwrite.id;
    const live =
      channel && targetId !== undefined ? overwriteKey(channel.id, overwrite.type, targetId) : undefined;
    if (live !== undefined) this.kept.add(live);
    const existing = live === undefined ? undefined : this.liveOverwrites.get(live);
    if (existing && samePermissions(existing, overwrite)) return;
    const item = this.snapshotItem(overwrite);
    const refusal = this.refusal(overwrite, channel, targetId);
    if (refusal) this.section.skipped.push(skippedOverride(item, refusal));
    else this.section.overrides_to_apply.push(item);
  }

  private refusal(
    overwrite: PermissionOverwrite,
    channel: PlatformChannel | undefined,
    targetId: string | undefined,
  ): string | undefined {
    if (!channel && !this.pending.channels.has(overwrite.channel_id)) return SKIP_REASON.channelNotRestored;
    if (targetId === undefined && !this.pending.roles.has(overwrite.id)) return SKIP_REASON.roleNotRestored;
    // The platform lets a bot allow or deny in an overwrite only bits it holds itself.
    const bits = BigInt(overwrite.allow) | BigInt(overwrite.deny);
    return mayGrant(this.input.bot, bits) ? undefined : SKIP_REASON.permissionsNotHeld;
  }

  /** Overwrites on live channels the snapshot has; live-only channels are the channel scope's business. */
  private removals(): OverrideItem[] {
    const channels = new Map<string, PlatformChannel>();
    for (const snapshotChannel of this.input.target.channels) {
      const live = this.lookup.channel(snapshotChannel.id);
      if (live) channels.set(live.id, live);
    }
    return this.input.live.permission_overrides
      .filter((o) => channels.has(o.channel_id) && !this.kept.has(overwriteKey(o.channel_id, o.type, o.id)))
      .map((o) => ({
        ...overrideFields(o),
        channel_name: channels.get(o.channel_id)?.name ?? o.channel_id,
        target_name: o.type === 'role' ? (this.lookup.liveRole(o.id)?.name ?? null) : null,
      }));
  }

  private snapshotItem(overwrite: PermissionOverwrite): OverrideItem {
    const role = overwrite.type === 'role' ? this.snapshotRoles.get(overwrite.id) : undefined;
    return {
      ...overrideFields(overwrite),
      channel_name: this.snapshotChannels.get(overwrite.channel_id)?.name ?? overwrite.channel_id,
      target_name: overwrite.type === 'role' ? (role?.name ?? null) : null,
    };
  }
}

function overrideFields(overwrite: PermissionOverwrite): Omit<OverrideItem, 'channel_name' | 'target_name'> {
  const { channel_id, id, type, allow, deny } = overwrite;
  return { channel_id, id, type, allow, deny };
}

function samePermissions(a: { allow: string; deny: string }, b: { allow: string; deny: string }): boolean {
  return BigInt(a.allow) === BigInt(b.allow) && BigInt(a.deny) === BigInt(b.deny);
}

/** An overwrite has no id of its own: `channel/target` names it in `skipped`. */
function skippedOverride(item: OverrideItem, reason: string): SkippedItem {
  const target = item.target_name ?? `${item.type} ${item.id}`;
  return {
    scope: 'permission_overrides',
    id: `${item.channel_id}/${item.id}`,
    name: `${item.channel_name} / ${target}`,
    reason,
  };
}

// ---------------------------------------------------------------------------------------------
// Guild settings

/** Every restorable setting; the record type makes the compiler insist a new one is listed. */
const SETTING_KIND: Record<RestorableSetting, 'value' | 'channel'> = {
  name: 'value',
  description: 'value',
  verification_level: 'value',
  default_message_notifications: 'value',
  explicit_content_filter: 'value',
  afk_channel_id: 'channel',
  afk_timeout: 'value',
  system_channel_id: 'channel',
  system_channel_flags: 'value',
  rules_channel_id: 'channel',
  public_updates_channel_id: 'channel',
  preferred_locale: 'value',
};

function diffGuildSettings(input: DiffInput, lookup: LiveLookup): RestoreDiff['guild_settings_diff'] {
  const diff: RestoreDiff['guild_settings_diff'] = {};
  for (const setting of Object.keys(SETTING_KIND) as RestorableSetting[]) {
    const target = input.target.guild[setting];
    const current = input.live.guild[setting];
    const wanted =
      SETTING_KIND[setting] === 'channel' && typeof target === 'string' ? lookup.channelId(target) : target;
    if (wanted !== current) diff[setting] = { current, target };
  }
  return diff;
}

// ---------------------------------------------------------------------------------------------
// Ordering: equal inputs must give byte-equal diffs, so every list has a total order.

/** Snowflakes compare as numbers: a shorter one is smaller. No locale, so no platform drift. */
function compareIds(a: string, b: string): number {
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

function byPosition(a: { position: number; id: string }, b: { position: number; id: string }): number {
  return a.position - b.position || compareIds(a.id, b.id);
}

function byOverrideOrder(a: OverrideItem, b: OverrideItem): number {
  return compareIds(a.channel_id, b.channel_id) || compareIds(a.id, b.id) || compareIds(a.type, b.type);
}

function bySkippedOrder(a: SkippedItem, b: SkippedItem): number {
  return RESTORE_SCOPES.indexOf(a.scope) - RESTORE_SCOPES.indexOf(b.scope) || compareIds(a.id, b.id);
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
  };
}
