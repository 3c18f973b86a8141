import { ApiOperation } from '@nestjs/swagger';
import { ProblemAnswers } from '@lib/problem-details';
import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  ParseUUIDPipe,
  Post,
  Query,
  Res,
} from '@nestjs/common';
import type { Response } from 'express';
import type { InternalIdentity } from '@lib/contracts';
import { RequireManageGuild, RequireManageGuildOf, requireUser, ScopeGuildId } from '@lib/guild-access';
import { CurrentIdentity } from '@lib/identity';
import { GuildRegistry } from '../guilds/guild-registry.service';
import { PAYLOAD_SCOPES, ScopePermissions } from '../guilds/scope-permissions';
import { SnapshotCatalog, type SnapshotActor } from './snapshot-catalog.service';
import { DeletedSnapshotGuildLookup, SnapshotGuildLookup } from './snapshot-guild.lookup';
import { type SnapshotExportFile, SnapshotExporter } from './snapshot-export';
import { type CreatedSnapshot, SnapshotService } from './snapshot.service';
import {
  CreateSnapshotDto,
  type DeletedSnapshotView,
  GetSnapshotQuery,
  ListSnapshotsQuery,
  type SnapshotDetailView,
  type SnapshotSummaryView,
} from './snapshots.dto';
import { AntiNukeErrors } from '../antinuke/antinuke.errors';
import { EntitlementErrors } from '@lib/entitlements';
import { GuildErrors } from '../guilds/guilds.errors';
import { SnapshotErrors } from './snapshots.errors';

/** Every route checks MANAGE_GUILD on the guild (or the snapshot's guild) before it validates. */
@Controller('api/v1')
export class SnapshotsController {
  constructor(
    private readonly guilds: GuildRegistry,
    private readonly snapshots: SnapshotService,
    private readonly catalog: SnapshotCatalog,
    private readonly scopePermissions: ScopePermissions,
    private readonly exporter: SnapshotExporter,
  ) {}

  /** docs/behaviour.md §4.6: a manual snapshot, 200 with `{id, size, created_at}`. */
  @ApiOperation({ summary: 'Take a snapshot' })
  @ProblemAnswers(
    EntitlementErrors.featureRequired,
    SnapshotErrors.planLimitExceeded,
    SnapshotErrors.restoreInProgress,
    SnapshotErrors.inProgress,
    SnapshotErrors.tooLarge,
  )
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
  @ProblemAnswers(GuildErrors.missingPlatformPermission, SnapshotErrors.notFound)
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

  /**
   * The snapshot as one file to keep elsewhere (payload and images): it shows all of the guild, so
   * the caller needs what reading the payload needs.
   */
  @ApiOperation({ summary: 'Export a snapshot' })
  @ProblemAnswers(GuildErrors.missingPlatformPermission, SnapshotErrors.notFound)
  @Get('snapshots/:snapshotId/export')
  @RequireManageGuildOf(SnapshotGuildLookup, { params: 'snapshotId' })
  async export(
    @CurrentIdentity() identity: InternalIdentity,
    @ScopeGuildId() guildId: string,
    @Param('snapshotId', new ParseUUIDPipe()) snapshotId: string,
    @Res({ passthrough: true }) res: Response,
  ): Promise<SnapshotExportFile> {
    await this.scopePermissions.require(guildId, requireUser(identity).platform_user_id, PAYLOAD_SCOPES, {
      action: 'Exporting the snapshot’s',
    });
    const file = await this.exporter.exportFile(guildId, snapshotId);
    res.setHeader('Content-Disposition', `attachment; filename="guildkeeper-snapshot-${snapshotId}.json"`);
    return file;
  }

  /**
   * A soft delete: the snapshot is hidden and its manual slot free at once; the guild's owner can
   * undo it for SNAPSHOT_DELETE_GRACE_DAYS, after which it is purged. The owner is told of a delete
   * by anyone else. An open incident's snapshot cannot be deleted.
   */
  @ApiOperation({ summary: 'Delete a snapshot' })
  @ProblemAnswers(SnapshotErrors.notFound, SnapshotErrors.inUse, SnapshotErrors.ofOpenIncident)
  @Delete('snapshots/:snapshotId')
  @HttpCode(204)
  @RequireManageGuildOf(SnapshotGuildLookup, { params: 'snapshotId' })
  delete(
    @CurrentIdentity() identity: InternalIdentity,
    @ScopeGuildId() guildId: string,
    @Param('snapshotId', new ParseUUIDPipe()) snapshotId: string,
  ): Promise<void> {
    return this.catalog.delete(guildId, snapshotId, actorOf(identity));
  }

  /** The guild's owner brings a deleted snapshot back within the grace period. */
  @ApiOperation({ summary: 'Undo a snapshot delete' })
  @ProblemAnswers(AntiNukeErrors.ownerOnly, SnapshotErrors.notFound)
  @Post('snapshots/:snapshotId/undelete')
  @HttpCode(200)
  @RequireManageGuildOf(DeletedSnapshotGuildLookup, { params: 'snapshotId' })
  undelete(
    @CurrentIdentity() identity: InternalIdentity,
    @ScopeGuildId() guildId: string,
    @Param('snapshotId', new ParseUUIDPipe()) snapshotId: string,
  ): Promise<DeletedSnapshotView> {
    return this.catalog.undelete(guildId, snapshotId, actorOf(identity));
  }

  /** The deleted snapshots the owner can still bring back (owner only). */
  @ApiOperation({ summary: 'List deleted snapshots' })
  @ProblemAnswers(AntiNukeErrors.ownerOnly)
  @Get('guilds/:guildId/deleted-snapshots')
  @RequireManageGuild({ params: 'guildId' })
  listDeleted(
    @CurrentIdentity() identity: InternalIdentity,
    @Param('guildId', new ParseUUIDPipe()) guildId: string,
  ): Promise<{ items: DeletedSnapshotView[] }> {
    return this.catalog.listDeleted(guildId, actorOf(identity));
  }
}

function actorOf(identity: InternalIdentity): SnapshotActor {
  const user = requireUser(identity);
  return { userId: user.user_id, platformUserId: user.platform_user_id };
}
