import { Injectable } from '@nestjs/common';
import { ChatPlatformClient, hasManageGuild, isChatPlatformError } from '@lib/chat-platform';
import type { GuildAccess } from '@lib/contracts';
import type { GuildAccessSource } from '@lib/guild-access';
import { NotFoundError } from '@lib/problem-details';
import { TtlCache } from '@lib/runtime';
import { toUserFacingError } from '../platform/platform-errors';
import { GuildsRepository } from './guilds.repository';

/** docs/behaviour.md §8 / docs/architecture.md: the MANAGE_GUILD answer is cached for 60 s per guild and user. */
export const MANAGE_GUILD_CACHE_TTL_MS = 60_000;

/**
 * Who may administer a guild in this service: MANAGE_GUILD there, computed from the member's roles.
 * The GuildAccessSource of recovery's own routes, and what the other services ask over HTTP.
 */
@Injectable()
export class GuildAccessService implements GuildAccessSource {
  private readonly cache = new TtlCache<boolean>(MANAGE_GUILD_CACHE_TTL_MS);

  constructor(
    private readonly guilds: GuildsRepository,
    private readonly platform: ChatPlatformClient,
  ) {}

  /**
   * The user's standing in the guild. Once the bot has gone, the platform no longer shows us the
   * guild's members: the owner recorded at registration is then the one manager we know, so they
   * alone hear that the guild is inactive, and everyone else is refused as for any guild.
   */
  async access(guildId: string, platformUserId: string): Promise<GuildAccess> {
    const guild = await this.guilds.findById(guildId);
    if (!guild) throw new NotFoundError('ErrGuildNotFound', 'Guild');
    const manageGuild = guild.active
      ? await this.cache.get(`${guild.platformGuildId}:${platformUserId}`, () =>
          this.liveManageGuild(guild.platformGuildId, platformUserId),
        )
      : platformUserId === guild.ownerPlatformUserId;
    return {
      guild_id: guild.id,
      platform_guild_id: guild.platformGuildId,
      name: guild.name,
      active: guild.active,
      manage_guild: manageGuild,
      owner_platform_user_id: guild.ownerPlatformUserId,
    };
  }

  /** Reads the member's roles from the platform now (no cache). A non-member has no permission. */
  async liveManageGuild(platformGuildId: string, platformUserId: string): Promise<boolean> {
    try {
      const [guild, roles, member] = await Promise.all([
        this.platform.getGuild(platformGuildId),
        this.platform.getRoles(platformGuildId),
        this.platform.getMember(platformGuildId, platformUserId),
      ]);
      const everyone = roles.find((role) => role.id === platformGuildId);
      return hasManageGuild({
        ownerId: guild.owner_id,
        everyonePermissions: everyone?.permissions ?? '0',
        roles,
        member,
      });
    } catch (error) {
      if (isChatPlatformError(error) && error.code === 'NotFound') return false;
      throw toUserFacingError(error);
    }
  }
}
