import { Injectable } from '@nestjs/common';
import {
  ChatPlatformClient,
  hasPermission,
  isChatPlatformError,
  memberPermissions,
  PERMISSION,
} from '@lib/chat-platform';
import type { GuildAccess } from '@lib/contracts';
import type { GuildAccessSource } from '@lib/guild-access';
import { TtlCache } from '@lib/runtime';
import { toUserFacingError } from '../platform/platform-errors';
import type { Guild } from './guild.entity';
import { GuildsRepository } from './guilds.repository';
import { GuildErrors } from './guilds.errors';

/**
 * docs/behaviour.md §8 / docs/decisions/manage-guild-check.md: a member's permissions are cached for 60 s per guild
 * and user, and no longer than the guild's access generation stays where it is (live sync moves it
 * on every member and role change it sees).
 */
export const MANAGE_GUILD_CACHE_TTL_MS = 60_000;

/**
 * Who may do what in a guild in this service: the member's guild-level permissions there, computed
 * from their roles and timeout as the platform does. The GuildAccessSource of recovery's own
 * routes, and what the other services ask over HTTP.
 */
@Injectable()
export class GuildAccessService implements GuildAccessSource {
  /** The member's permission bits (decimal), keyed by guild, access generation and user. */
  private readonly cache = new TtlCache<string>(MANAGE_GUILD_CACHE_TTL_MS);

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
    if (!guild) throw GuildErrors.notFound();
    const manageGuild = guild.active
      ? hasPermission(await this.permissionsIn(guild, platformUserId), PERMISSION.MANAGE_GUILD)
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

  /** The member's permissions in the guild, cached as `access` caches them. */
  async permissionsIn(guild: Guild, platformUserId: string): Promise<bigint> {
    const key = `${guild.platformGuildId}:${guild.accessGeneration}:${platformUserId}`;
    const bits = await this.cache.get(key, async () =>
      (await this.livePermissions(guild.platformGuildId, platformUserId)).toString(),
    );
    return BigInt(bits);
  }

  /**
   * The member's guild-level permissions read from the platform now: their roles' bits, cut to
   * what a timed-out member keeps while a timeout is in force. A non-member holds none.
   */
  async livePermissions(
    platformGuildId: string,
    platformUserId: string,
    /** The guild's settings when the caller has just read them: not read again. */
    known?: { owner_id: string },
  ): Promise<bigint> {
    try {
      const [guild, roles, member] = await Promise.all([
        known ?? this.platform.getGuild(platformGuildId),
        this.platform.getRoles(platformGuildId),
        this.platform.getMember(platformGuildId, platformUserId),
      ]);
      const everyone = roles.find((role) => role.id === platformGuildId);
      return memberPermissions({
        ownerId: guild.owner_id,
        everyonePermissions: everyone?.permissions ?? '0',
        roles,
        member,
      });
    } catch (error) {
      if (isChatPlatformError(error) && error.code === 'NotFound') return 0n;
      throw toUserFacingError(error);
    }
  }
}
