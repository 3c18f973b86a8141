import type {
  ChannelTypeFields,
  ForumFields,
  ForumTag,
  GuildSettings,
  PermissionOverride,
  PlatformChannel,
  PlatformRole,
} from './guild-state';

/** Every write carries a reason; it lands in the guild's audit log, where live sync recognises it. */
export interface WriteOptions {
  reason?: string;
}

/**
 * `colors` sets the role's colours (`color` is the platform's deprecated way to set the primary).
 * `icon` is the image itself as a data URI (`imageDataUri`), not the hash a role is read with;
 * null removes it.
 */
export type RoleInput = Partial<
  Pick<PlatformRole, 'name' | 'color' | 'colors' | 'permissions' | 'hoist' | 'mentionable' | 'unicode_emoji'>
> & { icon?: string | null };

/** An override as part of a channel write (the channel is implied). */
export type ChannelOverrideInput = Omit<PermissionOverride, 'channel_id'>;

/**
 * A forum tag in a write: the channel's whole list is sent, a tag with the `id` of one of the
 * channel's tags edits it (posts keep it), one without is new.
 */
export type ForumTagInput = Omit<ForumTag, 'id'> & { id?: string };

export type ChannelInput = Pick<PlatformChannel, 'name' | 'type'> &
  Partial<
    Pick<
      PlatformChannel,
      'position' | 'parent_id' | 'topic' | 'nsfw' | 'rate_limit_per_user' | 'bitrate' | 'user_limit'
    >
  > &
  ChannelTypeFields &
  Omit<ForumFields, 'available_tags'> & {
    available_tags?: ForumTagInput[];
    /** Set at creation so a private channel is never briefly public. */
    permission_overrides?: ChannelOverrideInput[];
  };

/** The platform changes a type only between text and announcement. */
export type ChannelUpdate = Partial<ChannelInput>;

export type GuildSettingsUpdate = Partial<Omit<GuildSettings, 'id' | 'owner_id'>>;

export interface RolePosition {
  id: string;
  position: number;
}

export interface ChannelPosition {
  id: string;
  position?: number;
  parent_id?: string | null;
}

/** The platform's incident actions: ISO 8601 times invites and DMs are paused until, null for not paused. */
export interface IncidentActions {
  invites_disabled_until: string | null;
  dms_disabled_until: string | null;
}
