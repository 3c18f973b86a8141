import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** A run claimed for this process, leased until it finishes or the lease runs out. */
export interface ClaimedRun {
  guild_id: string;
  run_date: string;
  attempts: number;
}

/** `recovery.scheduled_snapshot_runs`: one row per guild and day, the daily snapshot's job queue. */
@Injectable()
export class ScheduledSnapshotRunsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Queues a run at `midnight` for every active guild, each due at its own random offset within
   * plus or minus `jitterSeconds`. Idempotent (the primary key); returns how many were new.
   */
  async planFor(midnight: Date, jitterSeconds: number): Promise<number> {
    const rows = await this.dataSource.query<unknown[]>(
      `INSERT INTO recovery.scheduled_snapshot_runs (guild_id, run_date, due_at, next_attempt_at)
       SELECT id, $1::date, due_at, due_at
         FROM (SELECT id, $2::timestamptz + make_interval(secs => floor(random() * ($3 * 2 + 1)) - $3) AS due_at
                 FROM recovery.guilds
                WHERE bot_installed_at IS NOT NULL AND removed_at IS NULL) planned
       ON CONFLICT DO NOTHING
       RETURNING guild_id`,
      [midnight.toISOString().slice(0, 10), midnight.toISOString(), jitterSeconds],
    );
    return rows.length;
  }

  /** Takes the most overdue pending run (SKIP LOCKED), counting the attempt and leasing it. */
  async claimDue(leaseSeconds: number): Promise<ClaimedRun | undefined> {
    const [rows] = await this.dataSource.query<[ClaimedRun[], number]>(
      `UPDATE recovery.scheduled_snapshot_runs r
          SET attempts = r.attempts + 1, next_attempt_at = now() + make_interval(secs => $1), updated_at = now()
        WHERE (r.guild_id, r.run_date) = (
                SELECT guild_id, run_date FROM recovery.scheduled_snapshot_runs
                 WHERE status = 'pending' AND next_attempt_at <= now()
                 ORDER BY next_attempt_at
                 LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING r.guild_id, r.run_date::text AS run_date, r.attempts`,
      [leaseSeconds],
    );
    return rows[0];
  }

  async retryLater(run: ClaimedRun, delaySeconds: number, error: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE recovery.scheduled_snapshot_runs
          SET next_attempt_at = now() + make_interval(secs => $3), last_error = $4, updated_at = now()
        WHERE guild_id = $1 AND run_date = $2`,
      [run.guild_id, run.run_date, delaySeconds, error.slice(0, 2000)],
    );
  }

  async finish(
    run: ClaimedRun,
    status: 'done' | 'skipped' | 'failed',
    snapshotId: string | null,
    note: string | null,
  ): Promise<void> {
    await this.dataSource.query(
      `UPDATE recovery.scheduled_snapshot_runs
          SET status = $3, snapshot_id = $4, last_error = $5, updated_at = now()
        WHERE guild_id = $1 AND run_date = $2`,
      [run.guild_id, run.run_date, status, snapshotId, note?.slice(0, 2000) ?? null],
    );
  }

  /** Deletes up to `limit` finished runs (done, skipped, failed) of days before `cutoff`'s, oldest first. */
  async deleteFinishedBefore(cutoff: Date, limit: number): Promise<number> {
    const [, deleted] = await this.dataSource.query<[unknown, number]>(
      `DELETE FROM recovery.scheduled_snapshot_runs WHERE ctid = ANY (ARRAY(
         SELECT ctid FROM recovery.scheduled_snapshot_runs
          WHERE status <> 'pending' AND run_date < $1::date
          ORDER BY run_date
          LIMIT $2
            FOR UPDATE SKIP LOCKED))`,
      [cutoff.toISOString().slice(0, 10), limit],
    );
    return deleted;
  }
}
