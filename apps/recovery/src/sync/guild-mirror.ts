import {
  type GuildSettings,
  type GuildState,
  type PermissionOverride,
  type PlatformChannel,
  type PlatformRole,
  sortByPosition,
} from '@lib/chat-platform';
import { CHANNEL_SETTINGS, type JournalChange } from './change-journal-entry';
import type { GuildEvent } from './guild-events';

/**
 * One guild's roles, channels, overrides and settings as the gateway last told them. Every
 * change event carries the whole object it changed, so applying one twice, or one already
 * contained in the state the mirror was seeded from, changes nothing.
 */
export class GuildMirror {
  private settings: GuildSettings;
  private readonly roles = new Map<string, PlatformRole>();
  private readonly channels = new Map<string, PlatformChannel>();
  private readonly overrides = new Map<string, PermissionOverride[]>();

  constructor(state: GuildState) {
    this.settings = { ...state.guild };
    for (const role of state.roles) this.roles.set(role.id, role);
    for (const channel of state.channels) this.channels.set(channel.id, channel);
    for (const override of state.permission_overrides) {
      this.overrides.set(override.channel_id, [...(this.overrides.get(override.channel_id) ?? []), override]);
    }
  }

  apply(event: GuildEvent): void {
    switch (event.type) {
      case 'channel_create':
      case 'channel_update':
        this.channels.set(event.channel.id, event.channel);
        this.overrides.set(event.channel.id, event.overrides);
        return;
      case 'channel_delete':
        this.deleteChannel(event.channelId);
        return;
      case 'role_create':
      case 'role_update':
        this.roles.set(event.role.id, event.role);
        return;
      case 'role_delete':
        this.deleteRole(event.roleId);
        return;
      case 'guild_settings_update':
        this.settings = event.settings;
        return;
      case 'guild_available':
      case 'guild_unavailable':
      case 'member_ban':
      case 'member_remove':
      case 'audit_log_entry':
        // Whole-guild events replace the mirror (LiveSyncService); members are not mirrored.
        return;
    }
  }

  /** A role's permissions (decimal string), or null for a role the mirror does not hold. */
  rolePermissions(roleId: string): string | null {
    return this.roles.get(roleId)?.permissions ?? null;
  }

  /**
   * What `apply(event)` is about to change, as the mirror holds it now (call it before `apply`):
   * the object's previous version, or a creation. Null for an event that changes no object here,
   * or an update or delete of an object the mirror does not hold (nothing is known of its past).
   */
  beforeImage(event: GuildEvent): JournalChange | null {
    switch (event.type) {
      case 'channel_create':
      case 'channel_update': {
        const id = event.channel.id;
        const channel = this.channels.get(id);
        if (!channel) return { object_type: 'channel', object_id: id, change: 'create' };
        return {
          object_type: 'channel',
          object_id: id,
          change: 'update',
          before: { channel, overrides: this.overrides.get(id) ?? [] },
        };
      }
      case 'channel_delete': {
        const id = event.channelId;
        const channel = this.channels.get(id);
        if (!channel) return null;
        const children = [...this.channels.values()].filter((child) => child.parent_id === id);
        const settings = CHANNEL_SETTINGS.filter((setting) => this.settings[setting] === id);
        return {
          object_type: 'channel',
          object_id: id,
          change: 'delete',
          before: {
            channel,
            overrides: this.overrides.get(id) ?? [],
            ...(children.length > 0 && { children: children.map((child) => child.id) }),
            ...(settings.length > 0 && { settings }),
          },
        };
      }
      case 'role_create':
      case 'role_update':
      case 'role_delete': {
        const id = event.type === 'role_delete' ? event.roleId : event.role.id;
        const role = this.roles.get(id);
        if (!role)
          return event.type === 'role_delete'
            ? null
            : { object_type: 'role', object_id: id, change: 'create' };
        const overrides = [...this.overrides.values()]
          .flat()
          .filter((override) => override.type === 'role' && override.id === id);
        if (event.type !== 'role_delete') {
          return { object_type: 'role', object_id: id, change: 'update', before: { role, overrides } };
        }
        const order = sortByPosition([...this.roles.values()]);
        const below = order[order.findIndex((candidate) => candidate.id === id) - 1]?.id;
        return {
          object_type: 'role',
          object_id: id,
          change: 'delete',
          before: { role, overrides, ...(below !== undefined && { below }) },
        };
      }
      case 'guild_settings_update':
        return {
          object_type: 'settings',
          object_id: this.settings.id,
          change: 'update',
          before: { ...this.settings },
        };
      case 'guild_available':
      case 'guild_unavailable':
      case 'member_ban':
      case 'member_remove':
      case 'audit_log_entry':
        return null;
    }
  }

  /** The mirrored guild in the order of a REST read (`ChatPlatformClient.getGuildState`). */
  state(): GuildState {
    const channels = sortByPosition([...this.channels.values()]);
    return {
      guild: { ...this.settings },
      roles: sortByPosition([...this.roles.values()]),
      channels,
      permission_overrides: channels.flatMap((channel) => this.overrides.get(channel.id) ?? []),
    };
  }

  /** The platform keeps a deleted category's channels (without a parent) and clears settings naming it. */
  private deleteChannel(channelId: string): void {
    this.channels.delete(channelId);
    this.overrides.delete(channelId);
    for (const [id, channel] of this.channels) {
      if (channel.parent_id === channelId) this.channels.set(id, { ...channel, parent_id: null });
    }
    for (const setting of CHANNEL_SETTINGS) {
      if (this.settings[setting] === channelId) this.settings = { ...this.settings, [setting]: null };
    }
  }

  /** A deleted role's overrides go with it. */
  private deleteRole(roleId: string): void {
    this.roles.delete(roleId);
    for (const [channelId, overrides] of this.overrides) {
      if (overrides.some((override) => override.type === 'role' && override.id === roleId)) {
        this.overrides.set(
          channelId,
          overrides.filter((override) => !(override.type === 'role' && override.id === roleId)),
        );
      }
    }
  }
}
