import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { EntitlementsClient } from '@lib/entitlements';
import { Counter } from 'prom-client';
import { DEFAULT_GUARD_SETTINGS, GUARD_SETTINGS, type GuardSettings } from '../antinuke/guard-settings';
import { ImageStore } from './images/image-store';
import { SnapshotRetentionRepository } from './snapshot-retention.repository';

const snapshotsExpired = new Counter({
  name: 'snapshots_expired_total',
  help: 'Snapshots deleted by retention, by trigger',
  labelNames: ['trigger'],
});

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** docs/behaviour.md §8 retention. */
export const RETENTION = { antinuke: 7 * DAY_MS, pre_restore: 24 * HOUR_MS } as const;
/** Scheduled snapshots of a guild whose plan no longer says (FREE, expired): the shortest paid retention. */
export const DEFAULT_SCHEDULED_RETENTION_DAYS = 7;
/**
 * Deleted per guild and run: after a downgrade from 30 to 7 days the surplus goes over a few
 * nights ("gradually", docs/behaviour.md §8) instead of in one large delete.
 */
export const SCHEDULED_DELETE_BATCH = 10;
const BATCH = 1_000;
/** An image stored within this long may belong to a snapshot being stored (ImageStore). */
export const IMAGE_REMOVAL_GRACE_MS = HOUR_MS;

export interface RetentionReport {
  antinuke: number;
  pre_restore: number;
  scheduled: number;
  /** Deleted snapshots whose grace period (SNAPSHOT_DELETE_GRACE_DAYS) is over, of any trigger. */
  deleted: number;
  /** Images no snapshot refers to any more, removed after the snapshots above. */
  images_removed: number;
}

/**
 * docs/behaviour.md §4.10: nightly (04:00 UTC by default), snapshots older than their retention go;
 * manual ones are kept. Deleted snapshots go once their grace period is over.
 */
@Injectable()
export class SnapshotRetentionJob {
  private readonly logger = new Logger(SnapshotRetentionJob.name);

  constructor(
    private readonly retention: SnapshotRetentionRepository,
    private readonly entitlements: EntitlementsClient,
    private readonly images: ImageStore,
    @Optional() @Inject(GUARD_SETTINGS) private readonly guard: GuardSettings = DEFAULT_GUARD_SETTINGS,
  ) {}

  /** One pass, logged (SnapshotSchedules calls it on SNAPSHOT_RETENTION_CRON). */
  async nightly(): Promise<void> {
    const report = await this.runOnce(new Date());
    if (report) this.logger.log({ deleted: report }, 'snapshot retention applied');
  }

  /** Applies retention unless another replica holds the job's lock; returns what it deleted. */
  async runOnce(now: Date): Promise<RetentionReport | null> {
    return this.retention.exclusively(() => this.apply(now));
  }

  private async apply(now: Date): Promise<RetentionReport> {
    const report: RetentionReport = {
      antinuke: await this.deleteOlderThan('antinuke', new Date(now.getTime() - RETENTION.antinuke)),
      pre_restore: await this.deleteOlderThan('pre_restore', new Date(now.getTime() - RETENTION.pre_restore)),
      scheduled: 0,
      deleted: await this.purgeDeleted(new Date(now.getTime() - this.guard.snapshotDeleteGraceDays * DAY_MS)),
      images_removed: 0,
    };
    const guilds = await this.retention.guildsWithScheduledBefore(
      new Date(now.getTime() - DEFAULT_SCHEDULED_RETENTION_DAYS * DAY_MS),
    );
    for (const guild_id of guilds) {
      try {
        const { limits } = await this.entitlements.get(guild_id);
        const days = limits.scheduled_snapshot_retention_days ?? DEFAULT_SCHEDULED_RETENTION_DAYS;
        const deleted = await this.retention.deleteScheduledOlderThan(
          guild_id,
          new Date(now.getTime() - days * DAY_MS),
          SCHEDULED_DELETE_BATCH,
        );
        report.scheduled += deleted;
      } catch (error) {
        // Without the plan we cannot know the retention: keep the snapshots until tomorrow.
        this.logger.warn({ guild_id, err: String(error) }, 'scheduled snapshot retention skipped for guild');
      }
    }
    snapshotsExpired.inc({ trigger: 'scheduled' }, report.scheduled);
    const keptBefore = new Date(now.getTime() - IMAGE_REMOVAL_GRACE_MS);
    for (;;) {
      const removed = await this.images.removeUnreferenced(keptBefore, BATCH);
      report.images_removed += removed;
      if (removed < BATCH) break;
    }
    return report;
  }

  private async purgeDeleted(cutoff: Date): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await this.retention.purgeDeletedBefore(cutoff, BATCH);
      total += deleted;
      if (deleted < BATCH) break;
    }
    snapshotsExpired.inc({ trigger: 'deleted' }, total);
    return total;
  }

  private async deleteOlderThan(trigger: 'antinuke' | 'pre_restore', cutoff: Date): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await this.retention.deleteOlderThan(trigger, cutoff, BATCH);
      total += deleted;
      if (deleted < BATCH) break;
    }
    snapshotsExpired.inc({ trigger }, total);
    return total;
  }
}
