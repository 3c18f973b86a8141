import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ChatPlatformClient, isChatPlatformError } from '@lib/chat-platform';
import { ServiceRoute } from '@lib/identity';
import { TtlCache } from '@lib/runtime';
import { ArrayMaxSize, IsArray, Matches } from 'class-validator';
import { toUserFacingError } from '../platform/platform-errors';
import { GuildsRepository } from './guilds.repository';
import { SNOWFLAKE } from './guilds.dto';

/** A user belongs to at most 200 guilds on the platform (one page of `/users/@me/guilds`). */
export const MAX_LOOKUP_GUILDS = 200;

/**
 * How long the bot's presence in a guild is believed. Short: someone who just added the bot sees
 * it on their next look at the picker.
 */
export const BOT_PRESENCE_TTL_MS = 15_000;

export class GuildLookupDto {
  @IsArray()
  @ArrayMaxSize(MAX_LOOKUP_GUILDS)
  @Matches(SNOWFLAKE, { each: true, message: 'each platform_guild_id must be a platform guild id (digits)' })
  platform_guild_ids!: string[];
}

export interface GuildLookupEntry {
  platform_guild_id: string;
  /** Our id for the guild when it is in the registry (even if no longer protected), else null. */
  guild_id: string | null;
  /** In the registry and protected (bot installed, not removed). */
  registered: boolean;
  /** The bot is a member of the guild now, as the platform answers it. */
  bot_present: boolean;
}

/**
 * For the gateway's "my guilds" (the dashboard's guild picker): which of the platform guilds a user
 * can manage are registered here, and which the bot is in. The registry answers the first; the
 * platform, as the bot, the second (a guild the bot is not in is unknown to it).
 */
@ServiceRoute()
@Controller('internal/v1/guilds')
export class GuildLookupController {
  private readonly presence = new TtlCache<boolean>(BOT_PRESENCE_TTL_MS);

  constructor(
    private readonly registry: GuildsRepository,
    private readonly platform: ChatPlatformClient,
  ) {}

  @Post('lookup')
  @HttpCode(200)
  async lookup(@Body() body: GuildLookupDto): Promise<{ guilds: GuildLookupEntry[] }> {
    const ids = [...new Set(body.platform_guild_ids)];
    const [entries, present] = await Promise.all([
      this.registry.byPlatformIds(ids),
      Promise.all(ids.map((id) => this.presence.get(id, () => this.botIsIn(id)))),
    ]);
    const registered = new Map(entries.map((entry) => [entry.platform_guild_id, entry]));
    return {
      guilds: ids.map((id, index) => ({
        platform_guild_id: id,
        guild_id: registered.get(id)?.id ?? null,
        registered: registered.get(id)?.active ?? false,
        bot_present: present[index],
      })),
    };
  }

  private async botIsIn(platformGuildId: string): Promise<boolean> {
    try {
      await this.platform.getGuild(platformGuildId);
      return true;
    } catch (error) {
      // The platform does not show a guild to a bot that is not in it.
      if (isChatPlatformError(error) && (error.code === 'GuildNotFound' || error.code === 'NotFound')) {
        return false;
      }
      throw toUserFacingError(error);
    }
  }
}
