import {
  type BeforeApplicationShutdown,
  type FactoryProvider,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { exclusively } from '@lib/database';
import { Counter } from 'prom-client';
import { DataSource } from 'typeorm';
import { ScheduledPass } from './scheduled-pass';

const rowsExpired = new Counter({
  name: 'retention_rows_deleted_total',
  help: 'Rows deleted by retention, by table (schema.table) and rule',
  labelNames: ['table', 'rule'],
});

/** Rows per DELETE: each statement is its own short transaction that holds few locks. */
export const RETENTION_BATCH = 1_000;

/** One DELETE of at most `limit` rows; answers how many went. */
export type DeleteBatch = (limit: number) => Promise<number>;

/**
 * What one retention deletes. `apply` runs every statement through `drain`, which repeats it until a
 * batch comes back short (nothing of that kind is left) or shutdown began, and answers the rows it
 * deleted. A rule that must look something up first (a guild's plan) does so between drains, and
 * asks `stopping` before it does: once shutdown began, drains delete nothing.
 */
export interface RetentionRule {
  /** The table, `schema.table`: the metric's label and the log's key. */
  readonly table: string;
  /** Tells two rules of one table apart (webhook events' kinds); the table's name by default. */
  readonly rule?: string;
  apply(now: Date, drain: (batch: DeleteBatch) => Promise<number>, stopping: () => boolean): Promise<number>;
}

/** `days` whole days before `now`: a retention's cutoff. */
export function daysBefore(now: Date, days: number): Date {
  return new Date(now.getTime() - days * 86_400_000);
}

/** A rule of one statement: rows older than `days` before the sweep's `now` go, a batch at a time. */
export function olderThanDays(
  table: string,
  days: number,
  deleteBatch: (cutoff: Date, limit: number) => Promise<number>,
  rule?: string,
): RetentionRule {
  return {
    table,
    rule,
    apply: (now, drain) => {
      const cutoff = daysBefore(now, days);
      return drain((limit) => deleteBatch(cutoff, limit));
    },
  };
}

export interface RetentionSweepOptions {
  /** The job's name in the scheduler and in the advisory lock: one per app. */
  name: string;
  /** When the sweep runs, a cron expression in UTC. */
  cron: string;
  /** Rows per statement (RETENTION_BATCH). */
  batch?: number;
}

/** Rows deleted per rule in one sweep. */
export type RetentionReport = Record<string, number>;

/**
 * An app's retention: on its cron, the rules in order, each a series of small DELETEs (never one
 * long transaction), so a large backlog goes down steadily while the table stays in use.
 *
 * Every replica schedules the sweep; a session advisory lock named after it makes one of them run
 * it, and each rule's batches skip rows another transaction holds (`FOR UPDATE SKIP LOCKED` in the
 * rules' statements) rather than wait for them. Shutdown stops it after the batch in flight. A rule
 * that fails is logged and the next rule still runs: one table's trouble does not let the others grow.
 */
export class RetentionSweep implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger: Logger;
  private readonly pass: ScheduledPass;
  private readonly batch: number;

  constructor(
    private readonly dataSource: DataSource,
    scheduler: SchedulerRegistry,
    private readonly rules: readonly RetentionRule[],
    private readonly options: RetentionSweepOptions,
  ) {
    this.logger = new Logger(options.name);
    this.batch = options.batch ?? RETENTION_BATCH;
    // A pass still going (a large backlog) is left to finish; the ticks meanwhile are skipped.
    this.pass = new ScheduledPass(scheduler, options.name, async () => {
      const report = await this.runOnce();
      if (report && Object.values(report).some((deleted) => deleted > 0)) {
        this.logger.log({ deleted: report }, 'retention applied');
      }
    });
  }

  onApplicationBootstrap(): void {
    this.pass.cron(this.options.cron);
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.pass.stop();
  }

  /**
   * Applies every rule once as of `now`, unless another replica is at it (null). Answers the rows
   * each rule deleted; a rule that failed is absent from the report.
   */
  runOnce(now = new Date()): Promise<RetentionReport | null> {
    return exclusively(this.dataSource, `retention:${this.options.name}`, async () => {
      const report: RetentionReport = {};
      for (const rule of this.rules) {
        if (this.pass.isStopped) break;
        const label = rule.rule ?? rule.table;
        try {
          report[label] = await rule.apply(
            now,
            (batch) => this.drain(rule.table, label, batch),
            () => this.pass.isStopped,
          );
        } catch (error) {
          this.logger.error({ rule: label, err: String(error) }, 'retention rule failed');
        }
      }
      return report;
    });
  }

  private async drain(table: string, rule: string, deleteBatch: DeleteBatch): Promise<number> {
    let deleted = 0;
    while (!this.pass.isStopped) {
      const batch = await deleteBatch(this.batch);
      deleted += batch;
      rowsExpired.inc({ table, rule }, batch);
      // Anything but a full batch ends it (a count that is no number too: never loop on it).
      if (!(batch >= this.batch)) break;
    }
    return deleted;
  }
}

/**
 * The app's RetentionSweep as a Nest provider: its rules are built from the app's DataSource (and
 * the providers named in `inject`, handed after it), and it is scheduled on the app's
 * SchedulerRegistry at bootstrap and stopped at shutdown.
 */
export function retentionSweepProvider<Deps extends unknown[] = []>(
  options: RetentionSweepOptions,
  rules: (dataSource: DataSource, ...deps: Deps) => RetentionRule[],
  inject: FactoryProvider['inject'] = [],
): FactoryProvider<RetentionSweep> {
  return {
    provide: RetentionSweep,
    inject: [DataSource, SchedulerRegistry, ...inject],
    useFactory: (dataSource: DataSource, scheduler: SchedulerRegistry, ...deps: unknown[]) =>
      new RetentionSweep(dataSource, scheduler, rules(dataSource, ...(deps as Deps)), options),
  };
}
