import { ApiOperation } from '@nestjs/swagger';
import { Body, Controller, Get, HttpCode, Logger, Param, ParseUUIDPipe, Post, Query } from '@nestjs/common';
import type { GuildAccess, InternalIdentity } from '@lib/contracts';
import { RequireManageGuild, requireUser } from '@lib/guild-access';
import { CurrentIdentity, ServiceRoute } from '@lib/identity';
import { CommonErrors, ProblemAnswers, ValidationError } from '@lib/problem-details';
import { UserDirectory } from '../users/user-directory.repository';
import { GuildAccessService } from './guild-access.service';
import { GuildRegistry } from './guild-registry.service';
import { type GuildView, RegisterGuildDto, SNOWFLAKE, toGuildView } from './guilds.dto';
import { GuildErrors } from './guilds.errors';

@Controller('api/v1/guilds')
export class GuildsController {
  constructor(private readonly registry: GuildRegistry) {}

  /** Registers a guild the bot was invited to; the caller must administer it on the platform. */
  @ApiOperation({ summary: 'Register a guild' })
  @ProblemAnswers(CommonErrors.forbidden, GuildErrors.botNotInstalled)
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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * For the other services' guild-scoped routes (libs/guild-access). `user_id` is the asking
 * service's user of that request (ours, for that platform user): recovery records the pair in its
 * user directory, so a user who acts only through another service (a payer) can be named too.
 */
@ServiceRoute()
@Controller('internal/v1/guilds')
export class GuildAccessController {
  private readonly logger = new Logger(GuildAccessController.name);

  constructor(
    private readonly access: GuildAccessService,
    private readonly directory: UserDirectory,
  ) {}

  @Get(':guildId/access/:platformUserId')
  async check(
    @Param('guildId', new ParseUUIDPipe()) guildId: string,
    @Param('platformUserId') platformUserId: string,
    @Query('user_id') userId?: string,
  ): Promise<GuildAccess> {
    if (!SNOWFLAKE.test(platformUserId)) {
      throw new ValidationError('platformUserId must be the platform user id (digits)');
    }
    if (userId !== undefined && (typeof userId !== 'string' || !UUID.test(userId))) {
      throw new ValidationError('user_id must be a user id (a UUID)');
    }
    if (userId) {
      // Attribution only: the check is answered whether or not the pair could be stored.
      await this.directory.rememberReported(platformUserId, userId.toLowerCase()).catch((error: unknown) => {
        this.logger.warn({ err: error }, 'the reported user could not be recorded in the user directory');
      });
    }
    return this.access.access(guildId, platformUserId);
  }
}
