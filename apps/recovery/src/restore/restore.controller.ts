import { Body, Controller, Get, HttpCode, Param, ParseUUIDPipe, Post, UseFilters } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOperation } from '@nestjs/swagger';
import { ProblemAnswers } from '@lib/problem-details';
import type { InternalIdentity } from '@lib/contracts';
import { RequireManageGuildOf, ScopeGuildId } from '@lib/guild-access';
import { CurrentIdentity } from '@lib/identity';
import { PlatformOutageFilter } from '../platform/platform-outage.filter';
import { SnapshotGuildLookup } from '../snapshots/snapshot-guild.lookup';
import {
  PreviewRestoreDto,
  type RestoreJobView,
  type RestorePreviewView,
  type RestoreStartView,
  StartRestoreDto,
} from './restore.dto';
import { RestoreService } from './restore.service';
import { EntitlementErrors } from '@lib/entitlements';
import { GuildErrors } from '../guilds/guilds.errors';
import { RestoreErrors } from './restore.errors';
import { SnapshotErrors } from '../snapshots/snapshots.errors';

/**
 * MANAGE_GUILD on the guild of the snapshot (preview, start) or of the job is checked before the
 * body is validated: whoever may not see them gets the 404 of a missing one, whatever they sent.
 * A preview or start then needs, for each scope, the platform permission restoring it exercises
 * (403 ErrMissingPlatformPermission, before anything is written).
 */
@Controller('api/v1/restore')
export class RestoreController {
  constructor(private readonly restores: RestoreService) {}

  @ApiOperation({ summary: 'Preview a restore' })
  @ProblemAnswers(
    EntitlementErrors.featureRequired,
    GuildErrors.missingPlatformPermission,
    SnapshotErrors.notFound,
  )
  @Post('preview')
  @HttpCode(200)
  @RequireManageGuildOf(SnapshotGuildLookup, { body: 'snapshot_id' })
  @UseFilters(PlatformOutageFilter)
  preview(
    @CurrentIdentity() identity: InternalIdentity,
    @ScopeGuildId() guildId: string,
    @Body() body: PreviewRestoreDto,
  ): Promise<RestorePreviewView> {
    return this.restores.preview(identity, guildId, body);
  }

  /** 202: the job is accepted and runs on the workflow engine; read it for progress. */
  @ApiOperation({ summary: 'Start a restore' })
  @ProblemAnswers(
    EntitlementErrors.featureRequired,
    GuildErrors.missingPlatformPermission,
    SnapshotErrors.notFound,
    RestoreErrors.diffChanged,
    RestoreErrors.alreadyInProgress,
  )
  @Post('start')
  @HttpCode(202)
  @RequireManageGuildOf(SnapshotGuildLookup, { body: 'snapshot_id' })
  @UseFilters(PlatformOutageFilter)
  @ApiAcceptedResponse({
    description:
      'The job is `running` on the workflow engine. `job_id` (docs/behaviour.md §4.2) names it for ' +
      '`GET /api/v1/restore/{job_id}` and cancel; the job’s own fields (RestoreJob, `id` equal to ' +
      '`job_id`) come beside it.',
    schema: {
      type: 'object',
      required: ['job_id', 'id', 'status', 'engine_workflow_id'],
      additionalProperties: true,
      properties: {
        job_id: { type: 'string', format: 'uuid', description: 'The restore job started.' },
        id: { type: 'string', format: 'uuid', description: 'The job’s own id: the same as job_id.' },
        status: { type: 'string', enum: ['pending', 'running', 'completed', 'failed', 'canceled'] },
        engine_workflow_id: { type: 'string', nullable: true, example: 'restore-<job_id>' },
      },
    },
  })
  start(
    @CurrentIdentity() identity: InternalIdentity,
    @ScopeGuildId() guildId: string,
    @Body() body: StartRestoreDto,
  ): Promise<RestoreStartView> {
    return this.restores.start(identity, guildId, body);
  }

  @ApiOperation({ summary: 'Get a restore job' })
  @ProblemAnswers(RestoreErrors.jobNotFound)
  @Get(':jobId')
  @RequireManageGuildOf(RestoreService, { params: 'jobId' })
  get(
    @CurrentIdentity() identity: InternalIdentity,
    @ScopeGuildId() guildId: string,
    @Param('jobId', new ParseUUIDPipe()) jobId: string,
  ): Promise<RestoreJobView> {
    return this.restores.get(identity, guildId, jobId);
  }

  @ApiOperation({ summary: 'Cancel a restore' })
  @ProblemAnswers(RestoreErrors.jobNotFound, RestoreErrors.notActive)
  @Post(':jobId/cancel')
  @HttpCode(202)
  @RequireManageGuildOf(RestoreService, { params: 'jobId' })
  cancel(
    @ScopeGuildId() guildId: string,
    @Param('jobId', new ParseUUIDPipe()) jobId: string,
  ): Promise<RestoreJobView> {
    return this.restores.cancel(guildId, jobId);
  }
}
