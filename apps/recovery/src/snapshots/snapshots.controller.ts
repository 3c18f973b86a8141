import { ApiOperation } from '@nestjs/swagger';
import { ProblemAnswers } from '@lib/problem-details';
import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post, Query } from '@nestjs/common';
import type { InternalIdentity } from '@lib/contracts';
import { RequireManageGuild, RequireManageGuildOf, requireUser, ScopeGuildId } from '@lib/guild-access';
import { CurrentIdentity } from '@lib/identity';
import { GuildRegistry } from '../guilds/guild-registry.service';
import { PAYLOAD_SCOPES, ScopePermissions } from '../guilds/scope-permissions';
import { SnapshotCatalog } from './snapshot-catalog.service';
import { SnapshotGuildLookup } from './snapshot-guild.lookup';
import { type CreatedSnapshot, SnapshotService } from './snapshot.service';
import {
  CreateSnapshotDto,
  GetSnapshotQuery,
  ListSnapshotsQuery,
  type SnapshotDetailView,
  type SnapshotSummaryView,
} from './snapshots.dto';

/** Every route checks MANAGE_GUILD on the guild (or the snapshot's guild) before it validates. */
@Controller('api/v1')
export class SnapshotsController {
  constructor(
    private readonly guilds: GuildRegistry,
    private readonly snapshots: SnapshotService,
    private readonly catalog: SnapshotCatalog,
    private readonly scopePermissions: ScopePermissions,
  ) {}

  /** docs/behaviour.md §4.6: a manual snapshot, 200 with `{id, size, created_at}`. */
  @ApiOperation({ summary: 'Take a snapshot' })
  @ProblemAnswers({
    403: ['ErrPermissionDenied'],
    409: ['ErrPlanLimitExceeded', 'ErrRestoreInProgress', 'ErrSnapshotInProgress'],
    413: ['ErrSnapshotTooLarge'],
  })
  @Post('guilds/:guildId/snapshots')
  @HttpCode(200)
  @RequireManageGuild({ params: 'guildId' })
  async create(
    @CurrentIdentity() identity: InternalIdentity,
    @Param('guildId', new ParseUUIDPipe()) guildId: string,
    @Body() body: CreateSnapshotDto,
  ): Promise<CreatedSnapshot> {
    const guild = await this.guilds.get(guildId);
    const user = requireUser(identity);
    return this.snapshots.create({
      guild,
      trigger: 'manual',
      createdByUser: user.user_id,
      createdByPlatformUserId: user.platform_user_id,
      description: body.description,
    });
  }

  @ApiOperation({ summary: 'List snapshots' })
  @Get('guilds/:guildId/snapshots')
  @RequireManageGuild({ params: 'guildId' })
  list(
    @Param('guildId', new ParseUUIDPipe()) guildId: string,
    @Query() query: ListSnapshotsQuery,
  ): Promise<{ items: SnapshotSummaryView[]; next_cursor: string | null }> {
    return this.catalog.list(guildId, query);
  }

  /**
   * The payload shows all of the guild (private channels' overwrites, ban reasons): with
   * `include_payload` the caller needs every permission a restore of all of it would (the owner
   * always may); the counts alone need MANAGE_GUILD.
   */
  @ApiOperation({ summary: 'Get a snapshot' })
  @ProblemAnswers({ 403: ['ErrMissingPlatformPermission'], 404: ['ErrSnapshotNotFound'] })
  @Get('snapshots/:snapshotId')
  @RequireManageGuildOf(SnapshotGuildLookup, { params: 'snapshotId' })
  async get(
    @CurrentIdentity() identity: InternalIdentity,
    @ScopeGuildId() guildId: string,
    @Param('snapshotId', new ParseUUIDPipe()) snapshotId: string,
    @Query() query: GetSnapshotQuery,
  ): Promise<SnapshotDetailView> {
    if (query.include_payload) {
      await this.scopePermissions.require(guildId, requireUser(identity).platform_user_id, PAYLOAD_SCOPES, {
        action: 'Reading the snapshot’s',
      });
    }
    return this.catalog.get(guildId, snapshotId, query.include_payload);
  }

  @ApiOperation({ summary: 'Delete a snapshot' })
  @ProblemAnswers({ 404: ['ErrSnapshotNotFound'], 409: ['ErrSnapshotInUse'] })
  @Delete('snapshots/:snapshotId')
  @HttpCode(204)
  @RequireManageGuildOf(SnapshotGuildLookup, { params: 'snapshotId' })
  delete(
    @ScopeGuildId() guildId: string,
    @Param('snapshotId', new ParseUUIDPipe()) snapshotId: string,
  ): Promise<void> {
    return this.catalog.delete(guildId, snapshotId);
  }
}
