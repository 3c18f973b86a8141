import {
  type BeforeApplicationShutdown,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { ScheduledPass } from '@lib/runtime';
import { Counter } from 'prom-client';
import { type ExpiredRows, WebhookEventsRepository } from './webhook-events.repository';

const webhookEventsExpired = new Counter({
  name: 'webhook_events_expired_total',
  help: 'webhook_events rows deleted by retention, by kind (duplicates, others, superseded)',
  labelNames: ['kind'],
});

const DAY_MS = 86_400_000;
/** Rows per DELETE: each statement is a short transaction that holds few locks. */
export const RETENTION_BATCH = 1_000;
const JOB_NAME = 'webhook-events-retention';
/** The advisory lock that lets one replica run the job at a time (hashtext of this name). */
const LOCK_NAME = 'retention:webhook.webhook_events';

export interface RetentionSettings {
  /** WEBHOOK_EVENTS_RETENTION_DAYS */
  days: number;
  /** WEBHOOK_EVENTS_RETENTION_CRON, UTC */
  cron: string;
}

/**
 * Deletes `webhook.webhook_events` rows in a final state (processed, duplicate, refused for their
 * signature, a failed delivery of an event routed since) whose last change is older than
 * WEBHOOK_EVENTS_RETENTION_DAYS, on the schedule of WEBHOOK_EVENTS_RETENTION_CRON. A pending row,
 * and a failed one of an event not routed since (an operator may still reprocess it), is never
 * deleted, however old.
 *
 * Batches of `RETENTION_BATCH` rows, each its own statement, so the table is never locked for long
 * and a backlog (a table forged requests filled) goes down steadily. Every replica schedules the
 * job; an advisory lock makes one of them run it, and the batches skip rows other transactions hold.
 * Shutdown stops it after the batch in flight.
 */
@Injectable()
export class WebhookEventsRetentionJob implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(WebhookEventsRetentionJob.name);
  private readonly pass: ScheduledPass;

  constructor(
    private readonly events: WebhookEventsRepository,
    scheduler: SchedulerRegistry,
    private readonly settings: RetentionSettings,
  ) {
    // A pass still going (a large backlog) is left to finish; the ticks meanwhile are skipped.
    this.pass = new ScheduledPass(scheduler, JOB_NAME, async () => {
      const deleted = await this.runOnce();
      if (deleted) this.logger.log({ deleted, days: this.settings.days }, 'webhook events retention applied');
    });
  }

  onApplicationBootstrap(): void {
    this.pass.cron(this.settings.cron);
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.pass.stop();
  }

  /**
   * Applies retention once, unless another replica is at it (null). Returns how many rows went;
   * stops early, between batches, once shutdown began.
   */
  runOnce(now = new Date()): Promise<number | null> {
    const cutoff = new Date(now.getTime() - this.settings.days * DAY_MS);
    return this.events.exclusively(LOCK_NAME, async () => {
      let deleted = 0;
      // Duplicates first: they reference the rows they duplicate. A failed delivery is final while
      // its event's routed row exists, so it goes before that row does.
      for (const kind of ['duplicates', 'superseded', 'others'] as const) {
        deleted += await this.deleteAll(kind, cutoff);
      }
      return deleted;
    });
  }

  private async deleteAll(kind: ExpiredRows, cutoff: Date): Promise<number> {
    let deleted = 0;
    while (!this.pass.isStopped) {
      const batch = await this.events.deleteExpired(kind, cutoff, RETENTION_BATCH);
      deleted += batch;
      webhookEventsExpired.inc({ kind }, batch);
      if (batch < RETENTION_BATCH) break;
    }
    return deleted;
  }
}
