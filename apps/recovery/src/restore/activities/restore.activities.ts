import { Logger } from '@nestjs/common';
import type { GuildRegistry } from '../../guilds/guild-registry.service';
import type { ImageStore } from '../../snapshots/images/image-store';
import type { SnapshotService } from '../../snapshots/snapshot.service';
import type { LiveSyncControl } from '../../sync/live-sync-control.repository';
import type { RestoreComparisons } from '../restore-comparisons';
import type { RestoreJobRow, RestoreJobsRepository } from '../restore-jobs.repository';
import type { RestoreSteps } from '../steps';
import { withFailureTypes } from '../../activity-failures';
import {
  CHANGE_STEPS,
  type ChangeStep,
  type JobRef,
  type StepRef,
  NON_RETRYABLE_FAILURES,
  type RestoreActivities,
  STEP_ACTIVITY,
  STEP_SCOPE,
  type StepActivity,
  type StepActivityName,
  type StepOutcome,
} from '../workflows/restore-contract';
import { RestoreErrors } from '../restore.errors';

export interface RestoreActivityDeps {
  jobs: RestoreJobsRepository;
  guilds: GuildRegistry;
  comparisons: RestoreComparisons;
  steps: RestoreSteps;
  snapshots: SnapshotService;
  liveSync: LiveSyncControl;
  images: ImageStore;
}

/** The activities over this app's services (RestoreActivitiesModule): the worker's and the in-process runner's. */
export const RESTORE_ACTIVITIES = Symbol('RESTORE_ACTIVITIES');

const logger = new Logger('RestoreActivities');
/** Well inside the policy's heartbeat time-out, so only a dead worker misses it. */
const HEARTBEAT_INTERVAL_MS = 2_000;

/** The restore's activities over the app's services (temporalio samples' `createActivities(deps)`). */
export function createRestoreActivities(deps: RestoreActivityDeps): RestoreActivities {
  const { jobs, guilds, comparisons, steps, snapshots, liveSync, images } = deps;

  async function job(ref: JobRef): Promise<RestoreJobRow> {
    const row = await jobs.get(ref.jobId);
    if (!row) throw RestoreErrors.jobNotFound();
    return row;
  }

  async function changeStep(step: ChangeStep, ref: StepRef): Promise<StepOutcome> {
    const sharedFrom = comparisons.readsFrom();
    const row = await job(ref);
    const guild = await guilds.get(row.guild_id);
    const target = await comparisons.snapshotPayload(row.snapshot_id, row.guild_id);
    const comparison = await comparisons.compare(
      row.guild_id,
      guild.platformGuildId,
      target,
      [STEP_SCOPE[step]],
      sharedFrom,
    );
    return steps.run(step, {
      jobId: row.id,
      guildId: row.guild_id,
      platformGuildId: guild.platformGuildId,
      comparison,
      preview: row.preview_diff,
      awaiting: ref.awaiting ?? [],
      recordReplacement: (kind, originalId, replacementId) =>
        comparisons.recordReplacement(row.guild_id, row.id, {
          kind,
          original_id: originalId,
          replacement_id: replacementId,
        }),
      recordNewWebhook: (webhook) => jobs.recordNewWebhook(row.id, webhook),
      learnRecordedIds: async () =>
        comparison.ids.learnRecorded(await comparisons.recordedReplacements(row.guild_id)),
      readImages: async (digests) => {
        const read = await images.read(digests);
        const missing = digests.filter((digest) => !read.has(digest));
        if (missing.length > 0)
          throw new Error(`the image store lacks the snapshot's images ${missing.join(', ')}`);
        return read;
      },
    });
  }

  // One activity per change step, under the name CHANGE_STEP_TABLE gives it.
  const stepActivities = Object.fromEntries(
    CHANGE_STEPS.map((step) => [STEP_ACTIVITY[step], (ref: StepRef) => changeStep(step, ref)]),
  ) as Record<StepActivityName, StepActivity>;

  const activities: RestoreActivities = {
    /** Step 1: the snapshot is still there and of a payload version this build restores. */
    async validateSnapshot(ref) {
      const row = await job(ref);
      await comparisons.snapshotPayload(row.snapshot_id, row.guild_id);
    },

    /** Step 2: never fails the restore (docs/behaviour.md §7.3); a failure becomes a warning on the job. */
    async createPreRestoreSnapshot(ref) {
      const row = await job(ref);
      if (row.pre_restore_snapshot_id) return { snapshotId: row.pre_restore_snapshot_id, warning: null };
      try {
        const snapshot = await snapshots.create({
          guild: await guilds.get(row.guild_id),
          trigger: 'pre_restore',
          createdByUser: row.requested_by_user,
          description: `Before restore ${row.id}`,
        });
        await jobs.recordPreRestoreSnapshot(row.id, snapshot.id);
        return { snapshotId: snapshot.id, warning: null };
      } catch (error) {
        const warning = `The pre-restore snapshot could not be taken (${describe(error)}); the restore went ahead without it.`;
        logger.warn({ restore_job_id: row.id, err: error }, 'pre-restore snapshot failed');
        await jobs.addWarning(row.id, { code: 'pre_restore_snapshot_failed', message: warning });
        return { snapshotId: null, warning };
      }
    },

    async pauseLiveSync(ref) {
      const row = await job(ref);
      await liveSync.pause(row.guild_id, row.id);
    },

    async resumeLiveSync(ref) {
      const row = await job(ref);
      await liveSync.resume(row.guild_id, row.id);
    },

    ...stepActivities,

    /** Step 11. The approved preview's skipped items are what the user was told would be left. */
    async completeRestore({ jobId, summary }) {
      const row = await job({ jobId });
      const absent = row.scope.includes('member_roles') && {
        members_absent: row.preview_diff.members_absent ?? 0,
      };
      await jobs.complete(jobId, { ...summary, ...absent, skipped: row.preview_diff.skipped.length });
    },

    async endRestoreUnsuccessfully(failure) {
      await jobs.endUnsuccessfully(failure);
    },
  };
  // Temporal sees each failure with its stable type (PermissionDenied, GuildNotFound, ...) and
  // whether a retry could help; the workflow's policy names the types it never retries.
  return withFailureTypes(activities, NON_RETRYABLE_FAILURES, HEARTBEAT_INTERVAL_MS);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
