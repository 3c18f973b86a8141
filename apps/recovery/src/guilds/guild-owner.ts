import type { ChatPlatformClient } from '@lib/chat-platform';
import { toUserFacingError } from '../platform/platform-errors';
import type { Guild } from './guild.entity';

/**
 * Whether `platformUserId` owns the guild: the owner recorded at registration, and still the owner
 * the platform names now (an ownership moved since registration is not trusted on our record
 * alone). Anyone else is answered without a platform call.
 */
export async function isGuildOwner(
  platform: ChatPlatformClient,
  guild: Pick<Guild, 'platformGuildId' | 'ownerPlatformUserId'>,
  platformUserId: string,
): Promise<boolean> {
  if (guild.ownerPlatformUserId !== platformUserId) return false;
  const settings = await platform.getGuild(guild.platformGuildId).catch((error: unknown) => {
    throw toUserFacingError(error);
  });
  return settings.owner_id === platformUserId;
}
