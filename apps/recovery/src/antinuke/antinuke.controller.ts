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
import { QuarantineReleaseService } from './quarantine/quarantine-release.service';
import type { StoredQuarantine } from './quarantine/quarantine.repository';
import { type RaidUndo, RaidUndoService } from './undo/raid-undo.service';
import type { Actor } from './pending-changes.service';
import { AntiNukeErrors } from './antinuke.errors';
import { EntitlementErrors } from '@lib/entitlements';
import { PlatformErrors } from '../platform/platform.errors';
import { SnapshotErrors } from '../snapshots/snapshots.errors';

/** AntiNuke's setting and incidents (MANAGE_GUILD on the guild, checked before anything is validated). */
@Controller('api/v1/guilds/:guildId')
export class AntiNukeController {
  constructor(
    private readonly antinuke: AntiNukeService,
    private readonly quarantines: QuarantineReleaseService,
    private readonly undo: RaidUndoService,
  ) {}

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
  @ProblemAnswers(EntitlementErrors.featureRequired, AntiNukeErrors.selfExemption)
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
  @ProblemAnswers(AntiNukeErrors.ownerOnly, AntiNukeErrors.pendingChangeNotFound)
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
  @ProblemAnswers(AntiNukeErrors.ownerOnly, AntiNukeErrors.pendingChangeNotFound)
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
   * and the roles they stripped (at most 1,000 of each, with their totals), and the snapshot of the
   * guild before the raid once "Undo this raid" composed it.
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

  /**
   * "Give back": returns to the incident's actor exactly what its quarantine took (roles, a bot
   * role's permissions). Idempotent; what cannot be given back (a role deleted since, a member who
   * left) is listed in `release_result.not_given_back` with its reason.
   */
  @ApiOperation({ summary: 'Give back what the quarantine took' })
  @ProblemAnswers(
    EntitlementErrors.featureRequired,
    PlatformErrors.botPermissionDenied,
    AntiNukeErrors.quarantineNotFound,
  )
  @Post('antinuke/incidents/:incidentId/release')
  @HttpCode(200)
  @RequireManageGuild({ params: 'guildId' })
  release(
    @CurrentIdentity() identity: InternalIdentity,
    @Param('guildId', new ParseUUIDPipe()) guildId: string,
    @Param('incidentId', new ParseUUIDPipe()) incidentId: string,
  ): Promise<StoredQuarantine> {
    return this.quarantines.release(guildId, incidentId, requireUser(identity).user_id);
  }

  /**
   * "Undo this raid": a snapshot of the guild as it was just before the incident's actor first
   * acted (what they touched put back, what they created gone, their bans lifted, the roles they
   * took given back; everyone else's changes kept), composed now and kept on the incident. Asked
   * again with nothing changed, the same snapshot. Restore from it to undo the raid.
   */
  @ApiOperation({ summary: "Compose the snapshot that undoes an incident's raid" })
  @ProblemAnswers(
    PlatformErrors.botPermissionDenied,
    AntiNukeErrors.incidentNotFound,
    AntiNukeErrors.incidentWithoutRaider,
    SnapshotErrors.tooLarge,
  )
  @Post('antinuke/incidents/:incidentId/undo')
  @HttpCode(200)
  @RequireManageGuild({ params: 'guildId' })
  undoIncident(
    @Param('guildId', new ParseUUIDPipe()) guildId: string,
    @Param('incidentId', new ParseUUIDPipe()) incidentId: string,
  ): Promise<RaidUndo> {
    return this.undo.undo(guildId, incidentId);
  }
}

function actorOf(identity: InternalIdentity): Actor {
  const user = requireUser(identity);
  return { userId: user.user_id, platformUserId: user.platform_user_id };
}
