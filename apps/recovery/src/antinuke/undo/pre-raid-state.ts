import type {
  GuildSettings,
  GuildState,
  PermissionOverride,
  PlatformChannel,
  PlatformRole,
} from '@lib/chat-platform';
import { sortByPosition } from '@lib/chat-platform';
import { AuditLogEvent } from 'discord-api-types/v10';
import type { GuildMembership } from '../../snapshots/guild-membership';
import { type SnapshotPayload, snapshotMemberRoles } from '../../snapshots/snapshot-payload';
import {
  CHANNEL_SETTINGS,
  type ChannelBefore,
  type ChannelSetting,
  type JournalAuditEntry,
  type JournalChangeRow,
  type RoleBefore,
} from '../../sync/change-journal-entry';

/**
 * How far before the actor's first change to an object a before-image may have been kept and still
 * count as the one just before it: the journal stamps a change when live sync applies it, the audit
 * log when the platform writes it, and the two arrive in either order.
 */
export const BEFORE_IMAGE_SLACK_MS = 2_000;

export interface PreRaidInput {
  /** The guild as the platform shows it now, with its members and bans. */
  now: GuildState;
  membership: GuildMembership;
  /** The newest snapshot taken before the raid's first action, if any. */
  snapshot: SnapshotPayload | null;
  /** What the incident's actor did since just before the raid's first action, oldest first. */
  actorEntries: readonly JournalAuditEntry[];
  /** The guild's journal of changes over the same time (and the slack), oldest first. */
  journal: readonly JournalChangeRow[];
  /** What the incident recorded the actor doing to members (their audit-log entries are read too). */
  targets: { banned: readonly string[]; rolesStripped: readonly { user_id: string; role_id: string }[] };
}

/**
 * An object the actor deleted whose previous version nothing kept: it cannot be put back (an
 * emoji, sticker or guild image: no snapshot from before the raid kept its image).
 */
export interface UnknownObject {
  object_type:
    | 'channel'
    | 'role'
    | 'emoji'
    | 'sticker'
    | 'guild_image'
    | 'automod_rule'
    | 'welcome_screen'
    | 'onboarding'
    | 'webhook';
  object_id: string;
}

export interface PreRaidState {
  state: GuildState;
  membership: GuildMembership;
  unknown: UnknownObject[];
}

const CHANNEL_ACTIONS = new Set<number>([
  AuditLogEvent.ChannelCreate,
  AuditLogEvent.ChannelUpdate,
  AuditLogEvent.ChannelDelete,
  AuditLogEvent.ChannelOverwriteCreate,
  AuditLogEvent.ChannelOverwriteUpdate,
  AuditLogEvent.ChannelOverwriteDelete,
]);
const OVERWRITE_ACTIONS = new Set<number>([
  AuditLogEvent.ChannelOverwriteCreate,
  AuditLogEvent.ChannelOverwriteUpdate,
  AuditLogEvent.ChannelOverwriteDelete,
]);
const ROLE_ACTIONS = new Set<number>([
  AuditLogEvent.RoleCreate,
  AuditLogEvent.RoleUpdate,
  AuditLogEvent.RoleDelete,
]);
const CREATES = new Set<number>([AuditLogEvent.ChannelCreate, AuditLogEvent.RoleCreate]);
const DELETES = new Set<number>([AuditLogEvent.ChannelDelete, AuditLogEvent.RoleDelete]);

/** Audit-log keys that name a field of ours under another name. */
const FIELD_OF_KEY: Readonly<Record<string, string>> = { icon_hash: 'icon' };

/** What the actor did to one object, from their audit-log entries. */
interface Touched {
  type: 'channel' | 'role';
  id: string;
  firstAt: Date;
  /** What the actor's first entry on it did. */
  firstChange: 'create' | 'update' | 'delete';
  created: boolean;
  deleted: boolean;
  /** The object's fields the actor changed (update entries). */
  keys: Set<string>;
  overridesChanged: boolean;
  /** The old values of the actor's first entry on it (a delete lists every field). */
  oldValues: Record<string, unknown>;
  /** Per field the actor updated, its old value in their first update entry naming it. */
  firstOld: Map<string, unknown>;
}

/**
 * The guild as it was just before the raid, as far as the actor is concerned: the guild now, with
 * every object the actor touched put back as it was just before their first change to it (the
 * journal's before-image; else the snapshot from before the raid; else the audit log's old
 * values), what they created removed, the bans they made lifted and the roles they took, or that
 * went with a role they deleted, given back to members still here. Everything else stays as it is
 * now, legitimate changes by others included.
 */
export function composePreRaidState(input: PreRaidInput): PreRaidState {
  const roles = new Map(input.now.roles.map((role) => [role.id, role]));
  const channels = new Map(input.now.channels.map((channel) => [channel.id, channel]));
  let overrides = [...input.now.permission_overrides];
  let settings: GuildSettings = { ...input.now.guild };
  const unknown: UnknownObject[] = [];
  const restoredRoles: string[] = [];
  /** A deleted role's overrides, put back once every channel is. */
  const roleOverrides: PermissionOverride[] = [];
  /** Deleted roles put back, in the order the actor deleted them. */
  const reinserted: RoleBefore[] = [];
  /** A deleted category's channels (id -> the category), put back in it once every channel is. */
  const parents = new Map<string, string>();
  const touched = touchedObjects(input.actorEntries);

  for (const object of touched.values()) {
    if (object.created) {
      // Created by the actor (and perhaps changed since): it goes, with the overrides it has or names.
      if (object.type === 'channel') channels.delete(object.id);
      else roles.delete(object.id);
      overrides = overrides.filter((o) =>
        object.type === 'channel' ? o.channel_id !== object.id : !(o.type === 'role' && o.id === object.id),
      );
      continue;
    }
    if (object.type === 'channel') {
      const before = channelBefore(input, object);
      if (!before) {
        const current = channels.get(object.id);
        if (object.deleted) unknown.push({ object_type: 'channel', object_id: object.id });
        else if (current) channels.set(object.id, fieldsBefore(current, null, object, false));
        continue;
      }
      const current = channels.get(object.id);
      const whole = object.deleted || !current;
      channels.set(
        object.id,
        whole ? before.channel : fieldsBefore(current, before.channel, object, journalled(input, object)),
      );
      if (whole || object.overridesChanged) {
        overrides = [...overrides.filter((o) => o.channel_id !== object.id), ...before.overrides];
      }
      for (const childId of before.children ?? []) parents.set(childId, object.id);
      for (const setting of before.settings ?? []) {
        if (settings[setting] === null) settings = { ...settings, [setting]: object.id };
      }
    } else {
      const before = roleBefore(input, object);
      const current = roles.get(object.id);
      if (!before) {
        if (object.deleted) unknown.push({ object_type: 'role', object_id: object.id });
        else if (current) roles.set(object.id, fieldsBefore(current, null, object, false));
        continue;
      }
      if (object.deleted || !current) {
        roles.set(object.id, before.role);
        restoredRoles.push(object.id);
        reinserted.push(before);
        roleOverrides.push(...before.overrides);
      } else {
        roles.set(object.id, fieldsBefore(current, before.role, object, journalled(input, object)));
      }
    }
  }

  for (const [childId, parentId] of parents) {
    const child = channels.get(childId);
    if (child && child.parent_id === null) channels.set(childId, { ...child, parent_id: parentId });
  }
  const kept = new Set(overrides.map(overrideKey));
  overrides.push(...roleOverrides.filter((o) => channels.has(o.channel_id) && !kept.has(overrideKey(o))));
  settings = settingsBefore(input, settings);
  settings = channelSettingsCleared(input, touched, channels, settings);
  const orderedRoles = reorder([...roles.values()], reinserted);
  const ordered = sortByPosition([...channels.values()]);
  const order = new Map(ordered.map((channel, index) => [channel.id, index]));
  return {
    state: {
      guild: settings,
      roles: orderedRoles,
      channels: ordered,
      permission_overrides: overrides
        .filter((o) => order.has(o.channel_id))
        .sort((a, b) => order.get(a.channel_id)! - order.get(b.channel_id)!),
    },
    membership: membershipBefore(input, new Set(restoredRoles)),
    unknown,
  };
}

/**
 * The roles in order with each deleted one back right above the role that was below it (the last
 * deleted first, as undoing goes), numbered from 0: the platform renumbers the roles above a
 * deleted one, so its old position alone no longer says where it was.
 */
function reorder(roles: PlatformRole[], reinserted: readonly RoleBefore[]): PlatformRole[] {
  if (reinserted.length === 0) return sortByPosition(roles);
  const back = new Set(reinserted.map((before) => before.role.id));
  const order = sortByPosition(roles.filter((role) => !back.has(role.id)));
  for (const before of [...reinserted].reverse()) {
    const below = before.below === undefined ? -1 : order.findIndex((role) => role.id === before.below);
    const at = below >= 0 ? below + 1 : Math.min(Math.max(before.role.position, 1), order.length);
    order.splice(at, 0, before.role);
  }
  return order.map((role, position) => ({ ...role, position }));
}

/**
 * Settings naming a channel the actor deleted that the platform cleared with it (a settings update
 * of its own, before or after the delete, which no audit-log entry names): pointed at it again.
 */
function channelSettingsCleared(
  input: PreRaidInput,
  touched: ReadonlyMap<string, Touched>,
  channels: ReadonlyMap<string, PlatformChannel>,
  settings: GuildSettings,
): GuildSettings {
  let result = settings;
  for (const object of touched.values()) {
    if (object.type !== 'channel' || !object.deleted || object.created || !channels.has(object.id)) continue;
    const from = object.firstAt.getTime() - BEFORE_IMAGE_SLACK_MS;
    const named = new Set<ChannelSetting>();
    for (const change of input.journal) {
      if (change.object_type !== 'settings' || new Date(change.at).getTime() < from) continue;
      for (const setting of CHANNEL_SETTINGS) if (change.before[setting] === object.id) named.add(setting);
    }
    for (const setting of CHANNEL_SETTINGS) {
      if (input.snapshot?.guild[setting] === object.id && !touchedSetting(input, setting)) named.add(setting);
    }
    for (const setting of named) if (result[setting] === null) result = { ...result, [setting]: object.id };
  }
  return result;
}

/** Whether the actor's own settings updates name this setting (then settingsBefore decides it). */
function touchedSetting(input: PreRaidInput, setting: string): boolean {
  return input.actorEntries.some(
    (entry) =>
      entry.action_type === Number(AuditLogEvent.GuildUpdate) &&
      entry.changes.some((change) => change.key === setting),
  );
}

/** Each channel and role the actor's entries name, with what they did to it. */
function touchedObjects(entries: readonly JournalAuditEntry[]): Map<string, Touched> {
  const touched = new Map<string, Touched>();
  for (const entry of entries) {
    const type = CHANNEL_ACTIONS.has(entry.action_type)
      ? 'channel'
      : ROLE_ACTIONS.has(entry.action_type)
        ? 'role'
        : null;
    if (!type || !entry.target_id) continue;
    const key = `${type}:${entry.target_id}`;
    let object = touched.get(key);
    if (!object) {
      object = {
        type,
        id: entry.target_id,
        firstAt: new Date(entry.at),
        firstChange: CREATES.has(entry.action_type)
          ? 'create'
          : DELETES.has(entry.action_type)
            ? 'delete'
            : 'update',
        created: CREATES.has(entry.action_type),
        deleted: false,
        keys: new Set(),
        overridesChanged: false,
        oldValues: Object.fromEntries(entry.changes.map((change) => [change.key, change.old_value])),
        firstOld: new Map(),
      };
      touched.set(key, object);
    }
    if (DELETES.has(entry.action_type)) object.deleted = true;
    if (OVERWRITE_ACTIONS.has(entry.action_type)) object.overridesChanged = true;
    else {
      for (const change of entry.changes) {
        const key = FIELD_OF_KEY[change.key] ?? change.key;
        object.keys.add(key);
        const update = !CREATES.has(entry.action_type) && !DELETES.has(entry.action_type);
        if (update && 'old_value' in change && !object.firstOld.has(key))
          object.firstOld.set(key, change.old_value);
      }
    }
  }
  return touched;
}

/**
 * The journal's before-image of the actor's first change to the object: of the changes of that
 * kind (a delete, an update) journalled from just before it on, the one nearest to it in time.
 * Others' changes of the moment (the platform renumbering roles when one is created) are passed over.
 */
function journalBefore(input: PreRaidInput, object: Touched): unknown {
  const at = object.firstAt.getTime();
  let best: { before: unknown; distance: number } | undefined;
  for (const change of input.journal) {
    if (change.object_type !== object.type || change.object_id !== object.id || !('before' in change))
      continue;
    if (change.change !== object.firstChange) continue;
    const time = new Date(change.at).getTime();
    if (time < at - BEFORE_IMAGE_SLACK_MS) continue;
    const distance = Math.abs(time - at);
    if (!best || distance < best.distance) best = { before: change.before, distance };
  }
  return best?.before;
}

function channelBefore(input: PreRaidInput, object: Touched): ChannelBefore | null {
  const kept = journalBefore(input, object) as ChannelBefore | undefined;
  if (kept) return kept;
  const snapshot = input.snapshot;
  const channel = snapshot?.channels.find((candidate) => candidate.id === object.id);
  if (snapshot && channel) {
    return {
      channel: upToDate(channel, object),
      overrides: snapshot.permission_overrides.filter((o) => o.channel_id === object.id),
      children: snapshot.channels.filter((child) => child.parent_id === object.id).map((child) => child.id),
      settings: CHANNEL_SETTINGS.filter((setting) => snapshot.guild[setting] === object.id),
    };
  }
  const fromAudit = channelFromOldValues(object);
  return fromAudit && { channel: fromAudit, overrides: [] };
}

function roleBefore(input: PreRaidInput, object: Touched): RoleBefore | null {
  const kept = journalBefore(input, object) as RoleBefore | undefined;
  if (kept) return kept;
  const snapshot = input.snapshot;
  const role = snapshot?.roles.find((candidate) => candidate.id === object.id);
  if (snapshot && role) {
    const order = sortByPosition([...snapshot.roles]);
    const below = order[order.indexOf(role) - 1]?.id;
    return {
      role: upToDate(role, object),
      overrides: snapshot.permission_overrides.filter((o) => o.type === 'role' && o.id === object.id),
      ...(below !== undefined && { below }),
    };
  }
  const fromAudit = roleFromOldValues(object);
  return fromAudit && { role: fromAudit, overrides: [] };
}

/**
 * The snapshot's version of an object the actor deleted first, with the fields the delete's entry
 * lists as they were just before it: others may have changed it between the snapshot and the raid
 * (seen by nobody when the bot was out). Its position stays the snapshot's (the platform renumbers
 * the others as objects go), its overrides too (a delete's entry does not list them as ours).
 */
function upToDate<T extends PlatformChannel | PlatformRole>(version: T, object: Touched): T {
  if (object.firstChange !== 'delete') return version;
  const result = { ...version } as Record<string, unknown>;
  for (const [auditKey, value] of Object.entries(object.oldValues)) {
    const key = FIELD_OF_KEY[auditKey] ?? auditKey;
    if (!(key in version) || key === 'id' || key === 'position' || value === undefined) continue;
    if (typeof value !== typeof result[key] && result[key] !== null) continue;
    result[key] = value;
    if (key === 'color' && 'colors' in version && typeof value === 'number') {
      result.colors = { ...version.colors, primary_color: value };
    }
  }
  return result as T;
}

/**
 * A channel from the old values of the actor's first entry on it: a delete's entry lists every field
 * the channel had (the platform's audit log). Without a name and a type it is not a channel.
 */
function channelFromOldValues(object: Touched): PlatformChannel | null {
  const old = object.oldValues;
  if (typeof old.name !== 'string' || typeof old.type !== 'number') return null;
  return {
    id: object.id,
    type: old.type,
    name: old.name,
    position: typeof old.position === 'number' ? old.position : 0,
    parent_id: typeof old.parent_id === 'string' ? old.parent_id : null,
    topic: typeof old.topic === 'string' ? old.topic : null,
    nsfw: old.nsfw === true,
    rate_limit_per_user: typeof old.rate_limit_per_user === 'number' ? old.rate_limit_per_user : null,
    bitrate: typeof old.bitrate === 'number' ? old.bitrate : null,
    user_limit: typeof old.user_limit === 'number' ? old.user_limit : null,
  };
}

/** A role from the old values of the actor's first entry on it (a delete's entry lists its fields). */
function roleFromOldValues(object: Touched): PlatformRole | null {
  const old = object.oldValues;
  if (typeof old.name !== 'string' || typeof old.permissions !== 'string') return null;
  const color = typeof old.color === 'number' ? old.color : 0;
  return {
    id: object.id,
    name: old.name,
    color,
    colors: { primary_color: color, secondary_color: null, tertiary_color: null },
    position: typeof old.position === 'number' ? old.position : 1,
    permissions: old.permissions,
    hoist: old.hoist === true,
    mentionable: old.mentionable === true,
    managed: false,
    icon: typeof old.icon_hash === 'string' ? old.icon_hash : null,
    unicode_emoji: typeof old.unicode_emoji === 'string' ? old.unicode_emoji : null,
  };
}

/** Whether the journal kept the object as it was just before the actor's first change to it. */
function journalled(input: PreRaidInput, object: Touched): boolean {
  return journalBefore(input, object) !== undefined;
}

/**
 * `current` with the fields the actor changed as they were before: the journal's before-image is
 * the object just before their first change, so it is taken whole for those fields. Otherwise the
 * audit log's old value of each field (what it held just before the actor first changed it) comes
 * first, and the snapshot from before the raid, which may predate others' changes, only fills the
 * fields the log gives no old value for.
 */
function fieldsBefore<T extends PlatformChannel | PlatformRole>(
  current: T,
  before: T | null,
  object: Touched,
  fromJournal: boolean,
): T {
  const picked = before ? pick(current, before, object.keys) : { ...current };
  if (fromJournal) return picked;
  const result = picked as unknown as Record<string, unknown>;
  for (const [key, value] of object.firstOld) {
    if (!(key in current) || key === 'id') continue;
    result[key] = value ?? null;
    if (key === 'color' && 'colors' in current && typeof value === 'number') {
      result.colors = { ...(result.colors as PlatformRole['colors']), primary_color: value };
    }
  }
  return picked;
}

/** `current` with the fields the actor changed taken from `before` (a role's colour with its colours). */
function pick<T extends object>(current: T, before: T, keys: ReadonlySet<string>): T {
  const result = { ...current } as Record<string, unknown>;
  for (const key of keys) {
    if (key in before) result[key] = (before as Record<string, unknown>)[key];
    if (key === 'color' && 'colors' in before) result.colors = (before as Record<string, unknown>).colors;
  }
  return result as T;
}

/**
 * The settings the actor changed, each as it was before their first change: from the journal's
 * before-image, else the audit log's old value, else the snapshot from before the raid.
 */
function settingsBefore(input: PreRaidInput, settings: GuildSettings): GuildSettings {
  const updates = input.actorEntries.filter(
    (entry) => entry.action_type === Number(AuditLogEvent.GuildUpdate),
  );
  if (updates.length === 0) return settings;
  const from = new Date(updates[0].at).getTime() - BEFORE_IMAGE_SLACK_MS;
  const image = input.journal.find(
    (change) => change.object_type === 'settings' && new Date(change.at).getTime() >= from,
  );
  const kept = image && 'before' in image ? (image.before as GuildSettings) : undefined;
  const result: Record<string, unknown> = { ...settings };
  const done = new Set<string>();
  for (const entry of updates) {
    for (const change of entry.changes) {
      const key = FIELD_OF_KEY[change.key] ?? change.key;
      if (done.has(key) || !(key in settings) || key === 'owner_id') continue;
      done.add(key);
      if (kept && key in kept) result[key] = (kept as unknown as Record<string, unknown>)[key];
      else if ('old_value' in change) result[key] = change.old_value ?? null;
      else if (input.snapshot)
        result[key] = (input.snapshot.guild as unknown as Record<string, unknown>)[key];
    }
  }
  return result as unknown as GuildSettings;
}

/**
 * Members and bans now, with the actor's bans lifted and, for each member still here, the roles the
 * actor took from them, and the roles put back that they held in the snapshot, given back.
 */
function membershipBefore(input: PreRaidInput, restoredRoles: ReadonlySet<string>): GuildMembership {
  const { members, bans } = input.membership;
  const result: GuildMembership = {};
  const fromLog = actorMemberActions(input.actorEntries);
  if (bans !== undefined) {
    const banned = new Set([...input.targets.banned, ...fromLog.banned]);
    result.bans = Array.isArray(bans) ? bans.filter((ban) => !banned.has(ban.user.id)) : bans;
  }
  if (members === undefined || !Array.isArray(members)) {
    if (members !== undefined) result.members = members;
    return result;
  }
  const givenBack = new Map<string, Set<string>>();
  const give = (userId: string, roleId: string) =>
    givenBack.set(userId, (givenBack.get(userId) ?? new Set()).add(roleId));
  for (const { user_id, role_id } of [...input.targets.rolesStripped, ...fromLog.rolesStripped])
    give(user_id, role_id);
  const held = restoredRoles.size > 0 && input.snapshot ? snapshotMemberRoles(input.snapshot) : null;
  for (const [userId, roleIds] of held ?? []) {
    for (const roleId of roleIds) if (restoredRoles.has(roleId)) give(userId, roleId);
  }
  result.members = members.map((member) => {
    const extra = givenBack.get(member.user.id);
    if (!extra) return member;
    return { ...member, roles: [...new Set([...member.roles, ...extra])] };
  });
  return result;
}

/**
 * The bans and role removals the actor's audit-log entries show: the incident records them only
 * once it is open, the journal from the first.
 */
function actorMemberActions(entries: readonly JournalAuditEntry[]): PreRaidInput['targets'] {
  const banned: string[] = [];
  const rolesStripped: { user_id: string; role_id: string }[] = [];
  for (const entry of entries) {
    if (!entry.target_id) continue;
    if (entry.action_type === Number(AuditLogEvent.MemberBanAdd)) banned.push(entry.target_id);
    if (entry.action_type !== Number(AuditLogEvent.MemberRoleUpdate)) continue;
    for (const change of entry.changes) {
      if (change.key !== '$remove' || !Array.isArray(change.new_value)) continue;
      for (const role of change.new_value as unknown[]) {
        const id = (role as { id?: unknown } | null)?.id;
        if (typeof id === 'string') rolesStripped.push({ user_id: entry.target_id, role_id: id });
      }
    }
  }
  return { banned, rolesStripped };
}

function overrideKey(override: PermissionOverride): string {
  return `${override.channel_id}:${override.type}:${override.id}`;
}
