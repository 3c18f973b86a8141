import { ApiOperation } from '@nestjs/swagger';
import { Body, Controller, Get, HttpCode, Param, ParseUUIDPipe, Post } from '@nestjs/common';
import type { GuildAccess, InternalIdentity } from '@lib/contracts';
import { RequireManageGuild, requireUser } from '@lib/guild-access';
import { CurrentIdentity, ServiceRoute } from '@lib/identity';
import { ValidationError, ProblemAnswers } from '@lib/problem-details';
import { GuildAccessService } from './guild-access.service';
import { GuildRegistry } from './guild-registry.service';
import { type GuildView, RegisterGuildDto, SNOWFLAKE, toGuildView } from './guilds.dto';

@Controller('api/v1/guilds')
export class GuildsController {
  constructor(private readonly registry: GuildRegistry) {}

  /** Registers a guild the bot was invited to; the caller must administer it on the platform. */
  @ApiOperation({ summary: 'Register a guild' })
  @ProblemAnswers({ 403: ['ErrForbidden'], 404: ['ErrBotNotInstalled'] })
  @Post()
  @HttpCode(200)
  async register(
    @CurrentIdentity() identity: InternalIdentity,
    @Body() body: RegisterGuildDto,
  ): Promise<GuildView> {
    const user = requireUser(identity);
    return toGuildView(await this.registry.register(body.platform_guild_id, user.platform_user_id));
  }

  @ApiOperation({ summary: 'Get a guild' })
  @Get(':guildId')
  @RequireManageGuild({ params: 'guildId' })
  async get(@Param('guildId', new ParseUUIDPipe()) guildId: string): Promise<GuildView> {
    return toGuildView(await this.registry.get(guildId));
  }
}

/** For the other services' guild-scoped routes (libs/guild-access). */
@ServiceRoute()
@Controller('internal/v1/guilds')
export class GuildAccessController {
  constructor(private readonly access: GuildAccessService) {}

  @Get(':guildId/access/:platformUserId')
  async check(
    @Param('guildId', new ParseUUIDPipe()) guildId: string,
    @Param('platformUserId') platformUserId: string,
  ): Promise<GuildAccess> {
    if (!SNOWFLAKE.test(platformUserId)) {
      throw new ValidationError('platformUserId must be the platform user id (digits)');
    }
    return this.access.access(guildId, platformUserId);
  }
}
