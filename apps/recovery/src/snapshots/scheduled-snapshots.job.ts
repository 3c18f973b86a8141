import { Injectable, Logger } from '@nestjs/common';
import { EntitlementsClient } from '@lib/entitlements';
import { DomainError } from '@lib/problem-details';
import { Counter } from 'prom-client';
import { GuildRegistry } from '../guilds/guild-registry.service';
import { type ClaimedRun, ScheduledSnapshotRunsRepository } from './scheduled-snapshot-runs.repository';
import { SnapshotService } from './snapshot.service';

const scheduledRuns = new Counter({
  name: 'scheduled_snapshot_runs_total',
  help: 'Scheduled snapshot runs finished, by outcome (failed = operator alert)',
  labelNames: ['outcome'],
});

/** docs/behaviour.md §4.10: around 00:00 UTC, within plus or minus 15 minutes per guild. */
export const SCHEDULE_JITTER_SECONDS = 15 * 60;
/** Retries of a failed run, then it is given up with an alert. */
export const MAX_ATTEMPTS = 5;
const RETRY_DELAYS_SECONDS = [60, 5 * 60, 15 * 60, 30 * 60];
/** A claimed run is leased this long: a replica that dies mid-run is replaced after it. */
const LEASE_SECONDS = 10 * 60;
const CONCURRENCY = 4;

/**
 * The daily `scheduled` snapshot as a small job queue in Postgres: one row per guild and day
 * (primary key), claimed with SKIP LOCKED under a lease, so across replicas each guild gets exactly
 * one snapshot a day, and a failed one is retried with backoff.
 */
@Injectable()
export class ScheduledSnapshotsJob {
  private readonly logger = new Logger(ScheduledSnapshotsJob.name);
  private running = false;

  constructor(
    private readonly runs: ScheduledSnapshotRunsRepository,
    private readonly guilds: GuildRegistry,
    private readonly snapshots: SnapshotService,
    private readonly entitlements: EntitlementsClient,
  ) {}

  /** One pass: plan tomorrow's runs, then take the due ones (SnapshotSchedules calls it). */
  async tick(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      await this.plan(new Date());
      await this.runDue();
    } catch (error) {
      this.logger.error({ err: String(error) }, 'scheduled snapshot tick failed');
    } finally {
      this.running = false;
    }
  }

  /**
   * Queues the next midnight's run for every active guild, each at its own random offset.
   * Idempotent: every replica may plan; the primary key keeps one run per guild and day.
   */
  async plan(now: Date): Promise<number> {
    const midnight = new Date(now);
    midnight.setUTCHours(24, 0, 0, 0);
    return this.runs.planFor(midnight, SCHEDULE_JITTER_SECONDS);
  }

  /** Runs every due run, a few at a time; returns how many were claimed. */
  async runDue(): Promise<number> {
    let claimed = 0;
    const worker = async () => {
      for (let run = await this.claim(); run; run = await this.claim()) {
        claimed++;
        await this.execute(run);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    return claimed;
  }

  private async claim(): Promise<ClaimedRun | undefined> {
    return this.runs.claimDue(LEASE_SECONDS);
  }

  private async execute(run: ClaimedRun): Promise<void> {
    try {
      const guild = await this.guilds.get(run.guild_id);
      if (!guild.active) return await this.finish(run, 'skipped', null, 'guild inactive');
      const entitlements = await this.entitlements.get(guild.id);
      if (!entitlements.features.includes('RECOVERY_SNAPSHOT_SCHEDULED')) {
        return await this.finish(
          run,
          'skipped',
          null,
          `plan ${entitlements.plan_code} has no scheduled snapshots`,
        );
      }
      const snapshot = await this.snapshots.create({ guild, trigger: 'scheduled', createdByUser: null });
      await this.finish(run, 'done', snapshot.id, null);
    } catch (error) {
      await this.failed(run, error);
    }
  }

  private async failed(run: ClaimedRun, error: unknown): Promise<void> {
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    // The creation routine turns platform failures into user-facing errors: a 4xx (guild gone, bot
    // lacks permission, too large) will answer the same tomorrow; a 5xx is an outage worth retrying.
    const permanent = error instanceof DomainError && error.status < 500;
    if (permanent || run.attempts >= MAX_ATTEMPTS) {
      this.logger.error(
        {
          alert: 'scheduled_snapshot_failed',
          guild_id: run.guild_id,
          run_date: run.run_date,
          attempts: run.attempts,
          error: message,
        },
        'scheduled snapshot given up',
      );
      return this.finish(run, 'failed', null, message);
    }
    const delay = RETRY_DELAYS_SECONDS[Math.min(run.attempts - 1, RETRY_DELAYS_SECONDS.length - 1)];
    this.logger.warn(
      { guild_id: run.guild_id, attempts: run.attempts, error: message },
      'scheduled snapshot will be retried',
    );
    await this.runs.retryLater(run, delay, message);
  }

  private async finish(
    run: ClaimedRun,
    status: 'done' | 'skipped' | 'failed',
    snapshotId: string | null,
    note: string | null,
  ): Promise<void> {
    scheduledRuns.inc({ outcome: status });
    await this.runs.finish(run, status, snapshotId, note);
  }
}
