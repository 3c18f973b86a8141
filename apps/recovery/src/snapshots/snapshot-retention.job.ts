import { Injectable, Logger } from '@nestjs/common';
import { EntitlementsClient } from '@lib/entitlements';
import { Counter } from 'prom-client';
import { DataSource } from 'typeorm';

const snapshotsExpired = new Counter({
  name: 'snapshots_expired_total',
  help: 'Snapshots deleted by retention, by trigger',
  labelNames: ['trigger'],
});

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** Spec §8 retention. */
export const RETENTION = { antinuke: 7 * DAY_MS, pre_restore: 24 * HOUR_MS } as const;
/** Scheduled snapshots of a guild whose plan no longer says (FREE, expired): the shortest paid retention. */
export const DEFAULT_SCHEDULED_RETENTION_DAYS = 7;
/**
 * Deleted per guild and run: after a downgrade from 30 to 7 days the surplus goes over a few
 * nights ("gradually", spec §8) instead of in one large delete.
 */
export const SCHEDULED_DELETE_BATCH = 10;
const BATCH = 1_000;
/** Any constant unique to this job: the advisory lock that makes one replica run it. */
const LOCK_KEY = 0x5e7e_0400;

const NOT_IN_USE = `NOT EXISTS (SELECT 1 FROM recovery.restore_jobs j
                                 WHERE j.snapshot_id = s.id AND j.status IN ('pending', 'running'))`;

export interface RetentionReport {
  antinuke: number;
  pre_restore: number;
  scheduled: number;
}

/** Spec §4.10: nightly (04:00 UTC by default), snapshots older than their retention go; manual ones are kept. */
@Injectable()
export class SnapshotRetentionJob {
  private readonly logger = new Logger(SnapshotRetentionJob.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly entitlements: EntitlementsClient,
  ) {}

  /** One pass, logged (SnapshotSchedules calls it on SNAPSHOT_RETENTION_CRON). */
  async nightly(): Promise<void> {
    const report = await this.runOnce(new Date());
    if (report) this.logger.log({ deleted: report }, 'snapshot retention applied');
  }

  /** Applies retention unless another replica holds the job's lock; returns what it deleted. */
  async runOnce(now: Date): Promise<RetentionReport | null> {
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      const [{ locked }] = (await runner.query(`SELECT pg_try_advisory_lock($1) AS locked`, [LOCK_KEY])) as {
        locked: boolean;
      }[];
      if (!locked) return null;
      try {
        return await this.apply(now);
      } finally {
        await runner.query(`SELECT pg_advisory_unlock($1)`, [LOCK_KEY]);
      }
    } finally {
      await runner.release();
    }
  }

  private async apply(now: Date): Promise<RetentionReport> {
    const report: RetentionReport = {
      antinuke: await this.deleteOlderThan('antinuke', new Date(now.getTime() - RETENTION.antinuke)),
      pre_restore: await this.deleteOlderThan('pre_restore', new Date(now.getTime() - RETENTION.pre_restore)),
      scheduled: 0,
    };
    const guilds = await this.dataSource.query<{ guild_id: string }[]>(
      `SELECT DISTINCT guild_id FROM recovery.snapshots
        WHERE trigger = 'scheduled' AND created_at < $1`,
      [new Date(now.getTime() - DEFAULT_SCHEDULED_RETENTION_DAYS * DAY_MS)],
    );
    for (const { guild_id } of guilds) {
      try {
        const { limits } = await this.entitlements.get(guild_id);
        const days = limits.scheduled_snapshot_retention_days ?? DEFAULT_SCHEDULED_RETENTION_DAYS;
        const [, deleted] = await this.dataSource.query<[unknown, number]>(
          `DELETE FROM recovery.snapshots WHERE id IN (
             SELECT s.id FROM recovery.snapshots s
              WHERE s.guild_id = $1 AND s.trigger = 'scheduled' AND s.created_at < $2 AND ${NOT_IN_USE}
              ORDER BY s.created_at
              LIMIT $3)`,
          [guild_id, new Date(now.getTime() - days * DAY_MS), SCHEDULED_DELETE_BATCH],
        );
        report.scheduled += deleted;
      } catch (error) {
        // Without the plan we cannot know the retention: keep the snapshots until tomorrow.
        this.logger.warn({ guild_id, err: String(error) }, 'scheduled snapshot retention skipped for guild');
      }
    }
    snapshotsExpired.inc({ trigger: 'scheduled' }, report.scheduled);
    return report;
  }

  private async deleteOlderThan(trigger: 'antinuke' | 'pre_restore', cutoff: Date): Promise<number> {
    let total = 0;
    for (;;) {
      const [, deleted] = await this.dataSource.query<[unknown, number]>(
        `DELETE FROM recovery.snapshots WHERE id IN (
           SELECT s.id FROM recovery.snapshots s
            WHERE s.trigger = $1 AND s.created_at < $2 AND ${NOT_IN_USE}
            LIMIT $3)`,
        [trigger, cutoff, BATCH],
      );
      total += deleted;
      if (deleted < BATCH) break;
    }
    snapshotsExpired.inc({ trigger }, total);
    return total;
  }
}
