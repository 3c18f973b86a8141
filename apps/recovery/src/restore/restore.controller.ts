import { Body, Controller, Get, HttpCode, Param, ParseUUIDPipe, Post } from '@nestjs/common';
import type { InternalIdentity } from '@lib/contracts';
import { CurrentIdentity } from '@lib/identity';
import {
  PreviewRestoreDto,
  type RestoreJobView,
  type RestorePreviewView,
  StartRestoreDto,
} from './restore.dto';
import { RestoreService } from './restore.service';

@Controller('api/v1/restore')
export class RestoreController {
  constructor(private readonly restores: RestoreService) {}

  @Post('preview')
  @HttpCode(200)
  preview(
    @CurrentIdentity() identity: InternalIdentity,
    @Body() body: PreviewRestoreDto,
  ): Promise<RestorePreviewView> {
    return this.restores.preview(identity, body);
  }

  /** 202: the job is accepted and runs on the workflow engine; read it for progress. */
  @Post('start')
  @HttpCode(202)
  start(
    @CurrentIdentity() identity: InternalIdentity,
    @Body() body: StartRestoreDto,
  ): Promise<RestoreJobView> {
    return this.restores.start(identity, body);
  }

  @Get(':jobId')
  get(
    @CurrentIdentity() identity: InternalIdentity,
    @Param('jobId', new ParseUUIDPipe()) jobId: string,
  ): Promise<RestoreJobView> {
    return this.restores.get(identity, jobId);
  }

  @Post(':jobId/cancel')
  @HttpCode(202)
  cancel(
    @CurrentIdentity() identity: InternalIdentity,
    @Param('jobId', new ParseUUIDPipe()) jobId: string,
  ): Promise<RestoreJobView> {
    return this.restores.cancel(identity, jobId);
  }
}
