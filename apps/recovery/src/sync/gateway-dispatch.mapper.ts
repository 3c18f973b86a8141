import {
  toAuditLogEntry,
  toGuildSettings,
  toGuildState,
  toPermissionOverrides,
  toPlatformChannel,
  toPlatformRole,
  type WireGuildChannel,
} from '@lib/chat-platform';
import { type GatewayDispatchPayload, GatewayDispatchEvents, GatewayOpcodes } from 'discord-api-types/v10';
import type { SourceEvent } from './guild-events';

type DataOf<T extends GatewayDispatchEvents> = Extract<GatewayDispatchPayload, { t: T }>['d'];
type DispatchMappers = { [T in GatewayDispatchEvents]?: (data: DataOf<T>) => SourceEvent | null };

/** A guild channel as CHANNEL_CREATE/UPDATE/DELETE carry it; a direct-message channel has no guild. */
type WireChannelEvent = WireGuildChannel & { guild_id?: string };

/**
 * The dispatches live sync follows, each mapped from its wire object. `d` is what a REST read of
 * the same thing returns, so the chat-platform mappers turn it into `GuildState` shapes, and the
 * mirror and a re-read of the guild agree field for field.
 */
const MAPPERS: DispatchMappers = {
  [GatewayDispatchEvents.Ready]: (d) => ({ type: 'ready', botUserId: d.user.id }),
  // A guild in an outage is announced with `unavailable` and nothing else; it comes back later.
  [GatewayDispatchEvents.GuildCreate]: (d) =>
    d.unavailable
      ? null
      : { type: 'guild_available', platformGuildId: d.id, state: toGuildState(d, d.channels) },
  [GatewayDispatchEvents.GuildDelete]: (d) => ({
    type: 'guild_unavailable',
    platformGuildId: d.id,
    removed: !d.unavailable,
  }),
  [GatewayDispatchEvents.GuildUpdate]: (d) => ({
    type: 'guild_settings_update',
    platformGuildId: d.id,
    settings: toGuildSettings(d),
  }),
  [GatewayDispatchEvents.ChannelCreate]: (d) => channelChange('channel_create', d),
  [GatewayDispatchEvents.ChannelUpdate]: (d) => channelChange('channel_update', d),
  [GatewayDispatchEvents.ChannelDelete]: (d) => {
    const { guild_id: guildId } = d as WireChannelEvent;
    return guildId ? { type: 'channel_delete', platformGuildId: guildId, channelId: d.id } : null;
  },
  [GatewayDispatchEvents.GuildRoleCreate]: (d) => ({
    type: 'role_create',
    platformGuildId: d.guild_id,
    role: toPlatformRole(d.role),
  }),
  [GatewayDispatchEvents.GuildRoleUpdate]: (d) => ({
    type: 'role_update',
    platformGuildId: d.guild_id,
    role: toPlatformRole(d.role),
  }),
  [GatewayDispatchEvents.GuildRoleDelete]: (d) => ({
    type: 'role_delete',
    platformGuildId: d.guild_id,
    roleId: d.role_id,
  }),
  [GatewayDispatchEvents.GuildBanAdd]: (d) => ({
    type: 'member_ban',
    platformGuildId: d.guild_id,
    userId: d.user.id,
  }),
  [GatewayDispatchEvents.GuildMemberUpdate]: (d) => ({
    type: 'member_update',
    platformGuildId: d.guild_id,
    userId: d.user.id,
  }),
  [GatewayDispatchEvents.GuildMemberRemove]: (d) => ({
    type: 'member_remove',
    platformGuildId: d.guild_id,
    userId: d.user.id,
  }),
  [GatewayDispatchEvents.GuildAuditLogEntryCreate]: (d) => ({
    type: 'audit_log_entry',
    platformGuildId: d.guild_id,
    entry: toAuditLogEntry(d),
  }),
};

/**
 * A gateway dispatch (the raw `{ op: 0, t, d }` packet) as a live-sync event, or null for one
 * live sync does not follow.
 */
export function toSourceEvent(packet: unknown): SourceEvent | null {
  if (!isDispatch(packet)) return null;
  const map = MAPPERS[packet.t] as ((data: unknown) => SourceEvent | null) | undefined;
  return map ? map(packet.d) : null;
}

function channelChange(type: 'channel_create' | 'channel_update', data: object): SourceEvent | null {
  const channel = data as WireChannelEvent;
  if (!channel.guild_id) return null;
  return {
    type,
    platformGuildId: channel.guild_id,
    channel: toPlatformChannel(channel),
    overrides: toPermissionOverrides(channel),
  };
}

function isDispatch(packet: unknown): packet is GatewayDispatchPayload {
  if (typeof packet !== 'object' || packet === null) return false;
  const { op, t, d } = packet as { op?: unknown; t?: unknown; d?: unknown };
  return op === GatewayOpcodes.Dispatch && typeof t === 'string' && typeof d === 'object' && d !== null;
}
