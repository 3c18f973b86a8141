import {
  AuditLogEvent,
  GatewayDispatchEvents,
  GatewayIntentBits,
  PermissionFlagsBits,
} from 'discord-api-types/v10';
import { isDeepStrictEqual } from 'node:util';
import type { AuditLogChange, FakeAuditLogEntry } from './audit-log';
import type { GatewayDispatch } from './gateway/gateway-dispatch';
import type { GuildChange } from './guild-change';
import type { FakeChannel, FakeGuild, FakeMember, FakeOverwrite } from './platform-state';
import type { PlatformStore } from './platform-store';
import { channelWire, guildWire, memberWire, roleWire, userWire } from './wire-format';

/** Who made the request that changed a guild, and why, as its `X-Audit-Log-Reason` said. */
export interface ChangeCause {
  actorId: string;
  reason: string | null;
}

type Entry = Omit<FakeAuditLogEntry, 'id' | 'guild_id' | 'user_id' | 'reason'>;

const { Guilds, GuildMembers, GuildModeration } = GatewayIntentBits;

/** Fields an entry leaves out: ids it names anyway, and copies of other fields. */
const UNAUDITED_FIELDS = ['id', 'guild_id', 'colors', 'flags', 'managed', 'tags'];

/**
 * The change keys the audit log gives image fields: the hash, named as such (`icon_hash` for a
 * guild's or a role's icon, `banner_hash`, `splash_hash`, `discovery_splash_hash`). Discord's
 * audit-log docs listed these keys until they shortened the table to its exceptions;
 * discord-api-types keeps them (APIAuditLogChangeKeyIconHash and the rest).
 */
const IMAGE_CHANGE_KEYS: Record<string, string> = {
  icon: 'icon_hash',
  banner: 'banner_hash',
  splash: 'splash_hash',
  discovery_splash: 'discovery_splash_hash',
};

function withImageKeys(changes: AuditLogChange[]): AuditLogChange[] {
  return changes.map((change) => ({ ...change, key: IMAGE_CHANGE_KEYS[change.key] ?? change.key }));
}

/**
 * The fields that differ between two versions of an object, as an entry's changes: all of a
 * created object's set fields as new values, all of a deleted one's as old values.
 */
function fieldChanges(
  before: Record<string, unknown> | null,
  after: Record<string, unknown> | null,
  skip: readonly string[] = [],
): AuditLogChange[] {
  const keys = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
  const changes: AuditLogChange[] = [];
  for (const key of keys) {
    if (UNAUDITED_FIELDS.includes(key) || skip.includes(key)) continue;
    const old = before?.[key] ?? null;
    const now = after?.[key] ?? null;
    if (isDeepStrictEqual(old, now)) continue;
    changes.push({
      key,
      ...(before && old !== null ? { old_value: structuredClone(old) } : {}),
      ...(after && now !== null ? { new_value: structuredClone(now) } : {}),
    });
  }
  return changes;
}

function channelEntries(before: FakeChannel | null, after: FakeChannel | null, guild: FakeGuild): Entry[] {
  const target_id = (before ?? after)!.id;
  if (!before || !after) {
    const action_type = before ? AuditLogEvent.ChannelDelete : AuditLogEvent.ChannelCreate;
    const changes = fieldChanges(before && channelWire(before), after && channelWire(after));
    return [{ target_id, action_type, changes }];
  }
  // Overwrites have entries of their own.
  const entries: Entry[] = [];
  const changes = fieldChanges(channelWire(before), channelWire(after), ['permission_overwrites']);
  if (changes.length > 0) entries.push({ target_id, action_type: AuditLogEvent.ChannelUpdate, changes });
  const overwrites = (channel: FakeChannel) => new Map(channel.permission_overwrites.map((o) => [o.id, o]));
  const old = overwrites(before);
  const now = overwrites(after);
  for (const id of new Set([...old.keys(), ...now.keys()])) {
    const previous = old.get(id) ?? null;
    const current = now.get(id) ?? null;
    if (isDeepStrictEqual(previous, current)) continue;
    const overwrite = (current ?? previous)!;
    const action_type = byLifecycle(previous, current, {
      create: AuditLogEvent.ChannelOverwriteCreate,
      update: AuditLogEvent.ChannelOverwriteUpdate,
      delete: AuditLogEvent.ChannelOverwriteDelete,
    });
    const skip = previous && current ? ['id', 'type'] : [];
    entries.push({
      target_id,
      action_type,
      changes: fieldChanges({ ...previous }, current && { ...current }, skip),
      options: overwriteOptions(overwrite, guild),
    });
  }
  return entries;
}

/** `{ id, type, role_name }` with the type as a string ("0" role, "1" member), as the platform sends it. */
function overwriteOptions(overwrite: FakeOverwrite, guild: FakeGuild): Record<string, string> {
  const role = overwrite.type === 0 ? guild.roles.find((r) => r.id === overwrite.id) : undefined;
  return { id: overwrite.id, type: String(overwrite.type), ...(role ? { role_name: role.name } : {}) };
}

function memberEntries(before: FakeMember, after: FakeMember | null, guild: FakeGuild): Entry[] {
  const target_id = before.user_id;
  if (!after) return [{ target_id, action_type: AuditLogEvent.MemberKick }];
  const entries: Entry[] = [];
  if (before.nick !== after.nick) {
    entries.push({
      target_id,
      action_type: AuditLogEvent.MemberUpdate,
      changes: fieldChanges({ nick: before.nick }, { nick: after.nick }),
    });
  }
  const [timeoutBefore, timeoutAfter] = [before, after].map((m) => m.communication_disabled_until ?? null);
  if (timeoutBefore !== timeoutAfter) {
    entries.push({
      target_id,
      action_type: AuditLogEvent.MemberUpdate,
      changes: fieldChanges(
        { communication_disabled_until: timeoutBefore },
        { communication_disabled_until: timeoutAfter },
      ),
    });
  }
  const named = (ids: string[]) =>
    ids.map((id) => ({ id, name: guild.roles.find((role) => role.id === id)?.name ?? '' }));
  const added = after.roles.filter((id) => !before.roles.includes(id));
  const removed = before.roles.filter((id) => !after.roles.includes(id));
  const roleChanges = [
    ...(added.length ? [{ key: '$add', new_value: named(added) }] : []),
    ...(removed.length ? [{ key: '$remove', new_value: named(removed) }] : []),
  ];
  if (roleChanges.length) {
    entries.push({ target_id, action_type: AuditLogEvent.MemberRoleUpdate, changes: roleChanges });
  }
  return entries;
}

/** What a change from `before` to `after` is: a create (nothing before), a delete (nothing after) or an update. */
function byLifecycle<T>(before: unknown, after: unknown, answer: { create: T; update: T; delete: T }): T {
  return !before ? answer.create : !after ? answer.delete : answer.update;
}

/** A role's audit-log action and gateway event, by what happened to it. */
const ROLE_LIFECYCLE: Record<
  'create' | 'update' | 'delete',
  { action_type: AuditLogEvent; event: GatewayDispatchEvents }
> = {
  create: { action_type: AuditLogEvent.RoleCreate, event: GatewayDispatchEvents.GuildRoleCreate },
  update: { action_type: AuditLogEvent.RoleUpdate, event: GatewayDispatchEvents.GuildRoleUpdate },
  delete: { action_type: AuditLogEvent.RoleDelete, event: GatewayDispatchEvents.GuildRoleDelete },
};

/** The audit-log entries a change makes (none for knock-on effects) and the events that report it. */
function describe(change: GuildChange, guild: FakeGuild, store: PlatformStore) {
  const guild_id = guild.id;
  const dispatch = (event: GatewayDispatchEvents, data: unknown, intent: GatewayIntentBits) =>
    ({ event, data, guildId: guild_id, intent }) satisfies GatewayDispatch;
  const user = (id: string) => userWire(store.user(id));
  switch (change.kind) {
    case 'channel': {
      const { before, after } = change;
      const event = byLifecycle(before, after, {
        create: GatewayDispatchEvents.ChannelCreate,
        update: GatewayDispatchEvents.ChannelUpdate,
        delete: GatewayDispatchEvents.ChannelDelete,
      });
      return {
        entries: change.audited ? channelEntries(before, after, guild) : [],
        dispatches: [dispatch(event, channelWire((after ?? before)!), Guilds)],
      };
    }
    case 'role': {
      const { before, after } = change;
      const { action_type, event } = byLifecycle(before, after, ROLE_LIFECYCLE);
      const entry: Entry = {
        target_id: (before ?? after)!.id,
        action_type,
        changes: withImageKeys(fieldChanges(before && roleWire(before), after && roleWire(after))),
      };
      return {
        entries: change.audited ? [entry] : [],
        dispatches: [
          dispatch(
            event,
            after ? { guild_id, role: roleWire(after) } : { guild_id, role_id: before!.id },
            Guilds,
          ),
        ],
      };
    }
    case 'settings': {
      const entry: Entry = {
        target_id: guild_id,
        action_type: AuditLogEvent.GuildUpdate,
        changes: withImageKeys(fieldChanges({ ...change.before }, { ...change.after })),
      };
      return {
        entries: change.audited ? [entry] : [],
        dispatches: [
          dispatch(
            GatewayDispatchEvents.GuildUpdate,
            guildWire(guild, store.expressions.of(guild.id)),
            Guilds,
          ),
        ],
      };
    }
    case 'member': {
      const { before, after } = change;
      const dispatches: GatewayDispatch[] = after
        ? [
            dispatch(
              GatewayDispatchEvents.GuildMemberUpdate,
              { guild_id, ...memberWire(after, store.user(after.user_id)) },
              GuildMembers,
            ),
          ]
        : [
            dispatch(
              GatewayDispatchEvents.GuildMemberRemove,
              { guild_id, user: user(before.user_id) },
              GuildMembers,
            ),
            // The removed account itself loses the guild.
            {
              ...dispatch(GatewayDispatchEvents.GuildDelete, { id: guild_id }, Guilds),
              recipientId: before.user_id,
            },
          ];
      return { entries: change.audited ? memberEntries(before, after, guild) : [], dispatches };
    }
    case 'ban':
      return {
        entries: [{ target_id: change.userId, action_type: AuditLogEvent.MemberBanAdd }],
        dispatches: [
          dispatch(
            GatewayDispatchEvents.GuildBanAdd,
            { guild_id, user: user(change.userId) },
            GuildModeration,
          ),
        ],
      };
    case 'entry':
      return {
        entries: change.entry ? [change.entry] : [],
        dispatches: change.dispatch
          ? [
              {
                ...dispatch(change.dispatch.event, change.dispatch.data, change.dispatch.intent),
                ...(change.dispatch.permission !== undefined
                  ? { permission: change.dispatch.permission }
                  : {}),
              },
            ]
          : [],
      };
    case 'unban':
      return {
        entries: [{ target_id: change.userId, action_type: AuditLogEvent.MemberBanRemove }],
        dispatches: [
          dispatch(
            GatewayDispatchEvents.GuildBanRemove,
            { guild_id, user: user(change.userId) },
            GuildModeration,
          ),
        ],
      };
  }
}

/**
 * What the platform does once a request has changed guilds: it records an audit-log entry, in the
 * request's account's name, for each change the request made on purpose, and returns the gateway
 * events reporting each change followed by its new entries.
 */
export function recordChanges(
  store: PlatformStore,
  changes: GuildChange[],
  cause: ChangeCause,
): GatewayDispatch[] {
  const events: GatewayDispatch[] = [];
  for (const change of changes) {
    const guild = store.guilds.get(change.guildId);
    if (!guild) continue;
    const { entries, dispatches } = describe(change, guild, store);
    events.push(...dispatches);
    for (const draft of entries) {
      const entry: FakeAuditLogEntry = {
        id: store.ids.next(),
        guild_id: guild.id,
        user_id: cause.actorId,
        target_id: draft.target_id,
        action_type: draft.action_type,
        ...(draft.changes?.length ? { changes: draft.changes } : {}),
        ...(draft.options ? { options: draft.options } : {}),
        ...(cause.reason !== null ? { reason: cause.reason } : {}),
      };
      store.auditLogs.append(entry);
      events.push({
        event: GatewayDispatchEvents.GuildAuditLogEntryCreate,
        data: structuredClone(entry),
        guildId: guild.id,
        intent: GuildModeration,
        permission: PermissionFlagsBits.ViewAuditLog,
      });
    }
  }
  return events;
}
