import {
  type ChatPlatformClient,
  isChatPlatformError,
  type PlatformBan,
  type PlatformMember,
} from '@lib/chat-platform';

/** A part of the guild the bot may not read, and why. */
export interface Unreadable {
  unreadable: string;
}

/** The guild's members and bans as read; each part is absent when not asked for. */
export interface GuildMembership {
  members?: PlatformMember[] | Unreadable;
  bans?: PlatformBan[] | Unreadable;
}

export const MEMBERS_UNREADABLE =
  'the bot may not list the members (its application needs the server members intent turned on)';
export const BANS_UNREADABLE = 'the bot may not read the bans (it needs the Ban Members permission)';

/**
 * Every member with their roles, and the bans, each paged through the platform's REST lists (1,000
 * a call, on their own rate-limit buckets). The REST list rather than the gateway's member chunks:
 * it needs no connection of its own, a failed page is retried by itself, and the client's buckets
 * pace it with every other call. A part the bot may not read (the members intent turned off, or no
 * Ban Members permission) is answered with the reason; any other failure is thrown.
 */
export async function readGuildMembership(
  platform: ChatPlatformClient,
  platformGuildId: string,
  parts: { members: boolean; bans: boolean },
): Promise<GuildMembership> {
  const [members, bans] = await Promise.all([
    parts.members ? unlessRefused(platform.listMembers(platformGuildId), MEMBERS_UNREADABLE) : undefined,
    parts.bans ? unlessRefused(platform.listBans(platformGuildId), BANS_UNREADABLE) : undefined,
  ]);
  return { ...(members && { members }), ...(bans && { bans }) };
}

async function unlessRefused<T>(read: Promise<T>, reason: string): Promise<T | Unreadable> {
  try {
    return await read;
  } catch (error) {
    if (isChatPlatformError(error) && error.code === 'PermissionDenied') return { unreadable: reason };
    throw error;
  }
}
