import type {
  AuditLogEntry,
  GuildSettings,
  GuildState,
  PermissionOverride,
  PlatformChannel,
  PlatformRole,
} from '@lib/chat-platform';

/** The audit-log shapes are the library's: the same from the REST read and from the gateway. */
export type { AuditLogChange, AuditLogEntry } from '@lib/chat-platform';

/**
 * What live sync learns from the platform's gateway, in the shapes of `GuildState` (the same a
 * REST read and a snapshot hold). Ids are the platform's snowflakes; `platformGuildId` is the
 * platform's guild id, not ours.
 */
export type GuildEvent =
  /** The guild's whole state: on connect, on a reconnect, when the bot joins it. */
  | { type: 'guild_available'; platformGuildId: string; state: GuildState }
  /** The bot left or was removed (`removed`), or the guild is out in a platform outage. */
  | { type: 'guild_unavailable'; platformGuildId: string; removed: boolean }
  | {
      type: 'channel_create' | 'channel_update';
      platformGuildId: string;
      channel: PlatformChannel;
      /** The channel's overrides as they now are, all of them. */
      overrides: PermissionOverride[];
    }
  | { type: 'channel_delete'; platformGuildId: string; channelId: string }
  | { type: 'role_create' | 'role_update'; platformGuildId: string; role: PlatformRole }
  | { type: 'role_delete'; platformGuildId: string; roleId: string }
  | { type: 'guild_settings_update'; platformGuildId: string; settings: GuildSettings }
  | { type: 'member_ban' | 'member_remove'; platformGuildId: string; userId: string }
  | { type: 'audit_log_entry'; platformGuildId: string; entry: AuditLogEntry };

/**
 * A member's roles, nickname or timeout changed (GUILD_MEMBER_UPDATE). The mirror does not keep
 * members; only who may manage the guild follows it.
 */
export interface MemberUpdated {
  type: 'member_update';
  platformGuildId: string;
  userId: string;
}

/** The connection is up; `botUserId` is the bot's own user, whose actions are never a raid. */
export interface SourceReady {
  type: 'ready';
  botUserId: string;
}

/** This process stopped following a gateway shard: the guilds on it are someone else's now. */
export interface ShardReleased {
  type: 'shard_released';
  shardId: number;
  shardCount: number;
}

/**
 * A resumed session's guilds (a resume replays events, not GUILD_CREATEs): the guilds this process
 * now follows on that shard, as the previous follower of the session knew them.
 */
export interface GuildsKnown {
  type: 'guilds_known';
  platformGuildIds: string[];
}

export type SourceEvent = SourceReady | ShardReleased | GuildsKnown | MemberUpdated | GuildEvent;
export type GuildEventType = GuildEvent['type'];

/**
 * Where guild events come from: the gateway shards this replica holds in production
 * (ShardCoordinator), a list in unit tests.
 * `start` resolves once connected; events arrive in the platform's order and the listener is
 * called synchronously, so it must not throw (nor wait: it hands work off).
 */
export interface GuildEventSource {
  start(listener: (event: SourceEvent) => void): Promise<void>;
  stop(): Promise<void>;
}

export const GUILD_EVENT_SOURCE = Symbol('GUILD_EVENT_SOURCE');
