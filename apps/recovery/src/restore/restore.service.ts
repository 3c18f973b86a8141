import { Injectable, Logger } from '@nestjs/common';
import { ChatPlatformClient, isChatPlatformError } from '@lib/chat-platform';
import type { InternalIdentity } from '@lib/contracts';
import { EntitlementsClient } from '@lib/entitlements';
import { type GuildResourceLookup, requireUser } from '@lib/guild-access';
import type { DomainError } from '@lib/problem-details';
import { v7 as uuidv7 } from 'uuid';
import type { Guild } from '../guilds/guild.entity';
import { GuildRegistry } from '../guilds/guild-registry.service';
import { isGuildOwner } from '../guilds/guild-owner';
import { ScopePermissions } from '../guilds/scope-permissions';
import { guildStateUnavailable } from '../platform/platform-errors';
import { type RestoreComparison, RestoreComparisons } from './restore-comparisons';
import {
  CREATION_QUOTA_WINDOW_SECONDS,
  changesPerStep,
  estimateDuration,
  restoreDiffHash,
} from './restore-diff';
import { type RestoreJobRow, RestoreJobsRepository } from './restore-jobs.repository';
import { RestoreRunner } from './restore-runner';
import { stepLabel } from './steps/change-steps';
import type {
  NewWebhookView,
  PreviewRestoreDto,
  RestoreJobView,
  RestorePreviewView,
  RestoreStartView,
  StartRestoreDto,
} from './restore.dto';
import type { RestoreWorkflowInput } from './workflows/restore-contract';
import { RestoreErrors } from './restore.errors';

/**
 * Preview, start, read and cancel restores (docs/behaviour.md §4.1-4.3, docs/decisions/cancel.md). The routes
 * check MANAGE_GUILD on the snapshot's or the job's guild first (a GuildResourceLookup: this
 * service for jobs, SnapshotGuildLookup for snapshots) and hand over that guild's id.
 */
@Injectable()
export class RestoreService implements GuildResourceLookup {
  private readonly logger = new Logger(RestoreService.name);

  constructor(
    private readonly jobs: RestoreJobsRepository,
    private readonly comparisons: RestoreComparisons,
    private readonly guilds: GuildRegistry,
    private readonly entitlements: EntitlementsClient,
    private readonly runner: RestoreRunner,
    private readonly scopePermissions: ScopePermissions,
    private readonly platform: ChatPlatformClient,
  ) {}

  /**
   * docs/behaviour.md §4.1, rules in order: the caller's platform permissions for each scope,
   * snapshot (of `guildId`), plan, payload version, live state, diff.
   */
  async preview(
    identity: InternalIdentity,
    guildId: string,
    request: PreviewRestoreDto,
  ): Promise<RestorePreviewView> {
    const user = requireUser(identity);
    await this.scopePermissions.require(guildId, user.platform_user_id, request.scope, {
      action: 'Previewing a restore of',
    });
    await this.entitlements.requireRestoreScopes(guildId, request.scope);
    const { diff } = await this.compare(guildId, request);
    return { ...diff, diff_hash: restoreDiffHash(diff) };
  }

  /**
   * docs/behaviour.md §4.2, rules in order; the job row is the lock (one active job per guild, in the database).
   * The answer carries `job_id` (docs/behaviour.md §4.2) beside the job's own fields.
   */
  async start(
    identity: InternalIdentity,
    guildId: string,
    request: StartRestoreDto,
  ): Promise<RestoreStartView> {
    const user = requireUser(identity);
    // Read from the platform now: a start changes the guild, and must not rest on a cached answer.
    await this.scopePermissions.require(guildId, user.platform_user_id, request.scope, {
      action: 'Restoring',
      live: true,
    });
    await this.entitlements.requireRestoreScopes(guildId, request.scope);
    await this.refuseIfActive(guildId);
    const { diff, guild } = await this.compare(guildId, request);
    if (restoreDiffHash(diff) !== request.approved_diff_hash) {
      throw RestoreErrors.diffChanged();
    }

    const jobId = uuidv7();
    const options = { create_pre_restore_snapshot: request.options?.create_pre_restore_snapshot ?? false };
    const inserted = await this.jobs.insertPending({
      id: jobId,
      guildId,
      snapshotId: request.snapshot_id,
      requestedByUser: user.user_id,
      requestedByPlatformUserId: user.platform_user_id,
      scope: request.scope,
      options,
      previewDiff: diff,
      guildName: guild.name,
      ownerPlatformUserId: guild.ownerPlatformUserId,
    });
    // Another start got in while the diff was computed: its job is the guild's active one.
    if (!inserted.inserted) throw this.alreadyInProgress(inserted.active);

    const input: RestoreWorkflowInput = {
      jobId,
      scope: request.scope,
      createPreRestoreSnapshot: options.create_pre_restore_snapshot,
      totals: changesPerStep(diff),
    };
    let workflowId: string;
    try {
      workflowId = await this.runner.start(input);
    } catch (error) {
      this.logger.error({ err: error, restore_job_id: jobId }, 'restore workflow could not be started');
      await this.jobs.endUnsuccessfully({
        jobId,
        status: 'failed',
        code: RestoreErrors.workflowUnavailable.code,
        message: 'The workflow engine could not start the restore.',
      });
      throw RestoreErrors.workflowUnavailable(jobId);
    }
    await this.jobs.markRunning(jobId, workflowId);
    return { job_id: jobId, ...this.view((await this.jobs.get(jobId))!) };
  }

  /**
   * docs/behaviour.md §4.3: the job, with live progress while it runs (omitted if the engine does
   * not answer). The addresses of the webhooks it made go to the guild's owner alone.
   */
  async get(identity: InternalIdentity, guildId: string, jobId: string): Promise<RestoreJobView> {
    const job = await this.jobOf(guildId, jobId);
    const view = this.view(job, await this.showsAddresses(identity, job));
    if (job.status === 'running' && job.engine_workflow_id) {
      const progress = await this.runner.progress(job.engine_workflow_id);
      if (progress) {
        const steps = progress.steps.map((step) => ({ ...step, label: stepLabel(step.name) }));
        view.progress = { ...progress, steps };
      }
    }
    return view;
  }

  /** The step running now may finish; later steps are skipped; the job ends `canceled`. */
  async cancel(guildId: string, jobId: string): Promise<RestoreJobView> {
    const job = await this.jobOf(guildId, jobId);
    if (job.status !== 'pending' && job.status !== 'running') {
      throw RestoreErrors.notActive(`This restore has already ended (${job.status}).`, {
        status: job.status,
      });
    }
    await this.jobs.requestCancel(job.id);
    if (job.engine_workflow_id) {
      try {
        await this.runner.cancel(job.engine_workflow_id);
      } catch (error) {
        this.logger.error({ err: error, restore_job_id: job.id }, 'cancel signal could not be delivered');
        throw RestoreErrors.cancelNotDelivered();
      }
    } else {
      // Not started on the engine (yet): nothing runs that could finish a step.
      await this.jobs.endUnsuccessfully({
        jobId: job.id,
        status: 'canceled',
        code: 'canceled',
        message: 'Canceled by the user.',
      });
    }
    return this.view((await this.jobs.get(job.id))!);
  }

  private async compare(
    guildId: string,
    request: PreviewRestoreDto,
  ): Promise<RestoreComparison & { guild: Guild }> {
    const guild = await this.guilds.get(guildId);
    const target = await this.comparisons.snapshotPayload(request.snapshot_id, guildId);
    const comparison = await this.comparisons
      .compare(guildId, guild.platformGuildId, target, request.scope)
      .catch((error: unknown) => {
        if (!isChatPlatformError(error)) throw error;
        // docs/behaviour.md §4.1 rule 4 / §7: the live state could not be read.
        throw guildStateUnavailable(error.code);
      });
    // The creation quotas count the guild's earlier restores within their window too.
    const recent = await this.jobs.recentCreations(guildId, CREATION_QUOTA_WINDOW_SECONDS);
    comparison.diff.estimated_duration = estimateDuration(comparison.diff, recent);
    return { ...comparison, guild };
  }

  private async refuseIfActive(guildId: string): Promise<void> {
    const active = await this.jobs.findActive(guildId);
    if (active) throw this.alreadyInProgress(active);
  }

  /** docs/behaviour.md §4.2 rule 2: 409 with the existing job's information. */
  private alreadyInProgress(active: RestoreJobRow): DomainError {
    return RestoreErrors.alreadyInProgress(this.view(active));
  }

  async find(jobId: string): Promise<{ guildId: string } | null> {
    const job = await this.jobs.get(jobId);
    return job ? { guildId: job.guild_id } : null;
  }

  notFound(): DomainError {
    return RestoreErrors.jobNotFound();
  }

  private async jobOf(guildId: string, jobId: string): Promise<RestoreJobRow> {
    const job = await this.jobs.get(jobId);
    if (job?.guild_id !== guildId) throw this.notFound();
    return job;
  }

  /** Whether the caller owns the job's guild (asked only when the job made webhooks). */
  private async showsAddresses(identity: InternalIdentity, job: RestoreJobRow): Promise<boolean> {
    if (Object.keys(job.new_webhooks ?? {}).length === 0 || identity.kind !== 'user') return false;
    const guild = await this.guilds.get(job.guild_id);
    return isGuildOwner(this.platform, guild, identity.platform_user_id);
  }

  /** `addresses`: the caller owns the guild, and sees the new webhooks' addresses. */
  private view(job: RestoreJobRow, addresses = false): RestoreJobView {
    const newWebhooks: NewWebhookView[] = Object.values(job.new_webhooks ?? {})
      .map((webhook) => ({
        webhook_id: webhook.webhook_id,
        name: webhook.name,
        channel_id: webhook.channel_id,
        channel_name: webhook.channel_name,
        address: addresses ? webhook.address : null,
      }))
      .sort((a, b) => a.channel_name.localeCompare(b.channel_name) || a.name.localeCompare(b.name));
    const iso = (date: Date | null) => (date ? new Date(date).toISOString() : null);
    return {
      id: job.id,
      guild_id: job.guild_id,
      snapshot_id: job.snapshot_id,
      requested_by_user: job.requested_by_user,
      scope: job.scope,
      options: job.options,
      status: job.status,
      preview_diff: job.preview_diff,
      engine_workflow_id: job.engine_workflow_id,
      error_message: job.error_message,
      result_summary: job.result_summary,
      pre_restore_snapshot_id: job.pre_restore_snapshot_id,
      warnings: job.warnings,
      cancel_requested_at: iso(job.cancel_requested_at),
      created_at: iso(job.created_at)!,
      started_at: iso(job.started_at),
      completed_at: iso(job.completed_at),
      new_webhooks: newWebhooks,
    };
  }
}
