import { ApiAcceptedResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ProblemAnswers } from '@lib/problem-details';
import { Body, Controller, Get, HttpCode, Param, ParseUUIDPipe, Post, Put, Query, Res } from '@nestjs/common';
import type { InternalIdentity } from '@lib/contracts';
import { RequireManageGuild, requireUser } from '@lib/guild-access';
import { CurrentIdentity } from '@lib/identity';
import type { Response } from 'express';
import type { IncidentView } from './antinuke-incidents.repository';
import {
  type AntiNukeView,
  ListIncidentsQuery,
  type PendingChangeView,
  UpdateAntiNukeSettingsDto,
} from './antinuke.dto';
import { AntiNukeService } from './antinuke.service';
import type { Actor } from './pending-changes.service';

/** AntiNuke's setting and incidents (MANAGE_GUILD on the guild, checked before anything is validated). */
@Controller('api/v1/guilds/:guildId')
export class AntiNukeController {
  constructor(private readonly antinuke: AntiNukeService) {}

  /**
   * The guild's AntiNuke setting, what its plan allows, whether AntiNuke runs now, a pending change,
   * and whether the caller owns the guild.
   */
  @ApiOperation({ summary: 'Get the AntiNuke setting' })
  @Get('antinuke')
  @RequireManageGuild({ params: 'guildId' })
  get(
    @CurrentIdentity() identity: InternalIdentity,
    @Param('guildId', new ParseUUIDPipe()) guildId: string,
  ): Promise<AntiNukeView> {
    return this.antinuke.get(guildId, actorOf(identity));
  }

  /**
   * Replaces the setting. The owner's change, and anyone's that loosens nothing, applies at once
   * (200, the setting). Anyone else's change that switches AntiNuke or auto-action off, exempts
   * someone more, raises the threshold or narrows the window waits (202, the pending change): the
   * owner is told by DM and may refuse it before it applies. Nobody may exempt themself.
   */
  @ApiOperation({ summary: 'Update the AntiNuke setting' })
  @ApiOkResponse({ description: 'Applied: the setting now in force.' })
  @ApiAcceptedResponse({ description: 'It loosens AntiNuke: held as the pending change until `applies_at`.' })
  @ProblemAnswers({ 403: ['ErrPermissionDenied', 'ErrSelfExemption'] })
  @Put('antinuke')
  @RequireManageGuild({ params: 'guildId' })
  async update(
    @CurrentIdentity() identity: InternalIdentity,
    @Param('guildId', new ParseUUIDPipe()) guildId: string,
    @Body() body: UpdateAntiNukeSettingsDto,
    @Res({ passthrough: true }) response: Response,
  ): Promise<AntiNukeView | PendingChangeView> {
    const result = await this.antinuke.update(guildId, body, actorOf(identity));
    response.status(result.status === 'pending' ? 202 : 200);
    return result.body;
  }

  /** The owner refuses the pending change: it never applies. */
  @ApiOperation({ summary: 'Refuse the pending AntiNuke change' })
  @ProblemAnswers({ 403: ['ErrOwnerOnly'], 404: ['ErrPendingChangeNotFound'] })
  @Post('antinuke/pending/:changeId/refuse')
  @HttpCode(200)
  @RequireManageGuild({ params: 'guildId' })
  refuse(
    @CurrentIdentity() identity: InternalIdentity,
    @Param('guildId', new ParseUUIDPipe()) guildId: string,
    @Param('changeId', new ParseUUIDPipe()) changeId: string,
  ): Promise<AntiNukeView> {
    return this.antinuke.refusePending(guildId, changeId, actorOf(identity));
  }

  /** The owner applies the pending change now. */
  @ApiOperation({ summary: 'Apply the pending AntiNuke change now' })
  @ProblemAnswers({ 403: ['ErrOwnerOnly'], 404: ['ErrPendingChangeNotFound'] })
  @Post('antinuke/pending/:changeId/approve')
  @HttpCode(200)
  @RequireManageGuild({ params: 'guildId' })
  approve(
    @CurrentIdentity() identity: InternalIdentity,
    @Param('guildId', new ParseUUIDPipe()) guildId: string,
    @Param('changeId', new ParseUUIDPipe()) changeId: string,
  ): Promise<AntiNukeView> {
    return this.antinuke.approvePending(guildId, changeId, actorOf(identity));
  }

  /**
   * The guild's AntiNuke incidents, newest first, each with the members its actor banned and kicked
   * and the roles they stripped (at most 1,000 of each, with their totals): what "undo this raid"
   * restores from the incident's snapshot.
   */
  @ApiOperation({ summary: 'List AntiNuke incidents' })
  @Get('incidents')
  @RequireManageGuild({ params: 'guildId' })
  listIncidents(
    @Param('guildId', new ParseUUIDPipe()) guildId: string,
    @Query() query: ListIncidentsQuery,
  ): Promise<{ items: IncidentView[]; next_cursor: string | null }> {
    return this.antinuke.listIncidents(guildId, query);
  }
}

function actorOf(identity: InternalIdentity): Actor {
  const user = requireUser(identity);
  return { userId: user.user_id, platformUserId: user.platform_user_id };
}
