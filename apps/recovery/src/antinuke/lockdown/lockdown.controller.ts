import { ApiOperation } from '@nestjs/swagger';
import { ProblemAnswers } from '@lib/problem-details';
import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post } from '@nestjs/common';
import type { InternalIdentity } from '@lib/contracts';
import { EntitlementsClient } from '@lib/entitlements';
import { RequireManageGuild, requireUser } from '@lib/guild-access';
import { CurrentIdentity } from '@lib/identity';
import { StartLockdownDto } from './lockdown.dto';
import { LockdownService, type LockdownView } from './lockdown.service';
import { AntiNukeErrors } from '../antinuke.errors';
import { EntitlementErrors } from '@lib/entitlements';
import { PlatformErrors } from '../../platform/platform.errors';

/**
 * The guild's lockdown (MANAGE_GUILD on the guild). Starting one by hand needs ANTINUKE_DETECT,
 * the plan AntiNuke protects a guild with: it is an emergency brake a manager pulls, as a restore
 * is; what ENTERPRISE adds (ANTINUKE_AUTO_ACTION) is AntiNuke pulling it on its own.
 */
@Controller('api/v1/guilds/:guildId/antinuke/lockdown')
export class LockdownController {
  constructor(
    private readonly lockdowns: LockdownService,
    private readonly entitlements: EntitlementsClient,
  ) {}

  /** The lockdown in force, or null. */
  @ApiOperation({ summary: 'Get the lockdown in force' })
  @Get()
  @RequireManageGuild({ params: 'guildId' })
  async get(
    @Param('guildId', new ParseUUIDPipe()) guildId: string,
  ): Promise<{ lockdown: LockdownView | null }> {
    return { lockdown: await this.lockdowns.current(guildId) };
  }

  /**
   * Pauses invites and DMs and takes SEND_MESSAGES from @everyone for `minutes`, then lifts itself.
   * 409 ErrLockdownActive while one is in force.
   */
  @ApiOperation({ summary: 'Lock the guild down' })
  @ProblemAnswers(
    EntitlementErrors.featureRequired,
    PlatformErrors.botPermissionDenied,
    AntiNukeErrors.lockdownActive,
  )
  @Post()
  @HttpCode(201)
  @RequireManageGuild({ params: 'guildId' })
  async start(
    @CurrentIdentity() identity: InternalIdentity,
    @Param('guildId', new ParseUUIDPipe()) guildId: string,
    @Body() body: StartLockdownDto,
  ): Promise<LockdownView> {
    await this.entitlements.requireFeature(guildId, 'ANTINUKE_DETECT');
    const user = requireUser(identity);
    const started = await this.lockdowns.start(guildId, {
      minutes: body.minutes,
      incidentId: null,
      userId: user.user_id,
      platformUserId: user.platform_user_id,
    });
    if (!started.created) {
      throw AntiNukeErrors.lockdownActive(
        `A lockdown is in force until ${started.lockdown.lockdown_until}; lift it first to start another.`,
        { lockdown: started.lockdown },
      );
    }
    return started.lockdown;
  }

  /**
   * Lifts the lockdown now, giving back exactly what it changed: the owner, or the manager who
   * started it by hand (403 ErrOwnerOnly for anyone else). 404 ErrNoLockdown when none is in force.
   */
  @ApiOperation({ summary: 'Lift the lockdown' })
  @ProblemAnswers(
    EntitlementErrors.featureRequired,
    PlatformErrors.botPermissionDenied,
    AntiNukeErrors.ownerOnly,
    AntiNukeErrors.noLockdown,
  )
  @Delete()
  @RequireManageGuild({ params: 'guildId' })
  lift(
    @CurrentIdentity() identity: InternalIdentity,
    @Param('guildId', new ParseUUIDPipe()) guildId: string,
  ): Promise<LockdownView> {
    const user = requireUser(identity);
    return this.lockdowns.liftNow(guildId, { userId: user.user_id, platformUserId: user.platform_user_id });
  }
}
