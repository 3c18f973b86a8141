import { Injectable } from '@nestjs/common';
import { ChatPlatformClient, hasPermission, isChatPlatformError, PERMISSION } from '@lib/chat-platform';
import { CommonErrors } from '@lib/problem-details';
import { v7 as uuidv7 } from 'uuid';
import { toUserFacingError } from '../platform/platform-errors';
import { GuildAccessService } from './guild-access.service';
import type { Guild } from './guild.entity';
import { GuildsRepository } from './guilds.repository';
import { GuildErrors } from './guilds.errors';

/** The guild registry: which platform guilds the service protects, under which internal id. */
@Injectable()
export class GuildRegistry {
  constructor(
    private readonly guilds: GuildsRepository,
    private readonly platform: ChatPlatformClient,
    private readonly access: GuildAccessService,
  ) {}

  /**
   * Registers (or re-activates) a guild the bot has been invited to, for a user who administers
   * it there. Idempotent: registering twice returns the same internal id.
   */
  async register(platformGuildId: string, platformUserId: string): Promise<Guild> {
    const settings = await this.platform.getGuild(platformGuildId).catch((error: unknown) => {
      if (isChatPlatformError(error) && error.code === 'GuildNotFound') {
        throw GuildErrors.botNotInstalled();
      }
      throw toUserFacingError(error);
    });
    // The settings just read name the owner: the member's permissions take two more calls, not three.
    const permissions = await this.access.livePermissions(platformGuildId, platformUserId, settings);
    if (!hasPermission(permissions, PERMISSION.MANAGE_GUILD)) {
      throw CommonErrors.forbidden('You need the Manage Server permission on this guild.');
    }
    const id = await this.guilds.upsertInstalled({
      id: uuidv7(),
      platformGuildId,
      name: settings.name,
      ownerPlatformUserId: settings.owner_id,
    });
    return this.get(id);
  }

  async get(guildId: string): Promise<Guild> {
    const guild = await this.guilds.findById(guildId);
    if (!guild) throw GuildErrors.notFound();
    return guild;
  }

  /** The registered guild for a platform guild id, or null (e.g. a slash command from an unregistered guild). */
  async findByPlatformId(platformGuildId: string): Promise<Guild | null> {
    return this.guilds.findByPlatformId(platformGuildId);
  }

  /** Active guilds (bot installed, not removed), for scheduled jobs. */
  async activeGuilds(): Promise<Guild[]> {
    return this.guilds.findActive();
  }
}
