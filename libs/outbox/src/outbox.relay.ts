import { RetryTimer, ScheduledPass } from '@lib/runtime';
import { Logger } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { Client } from 'pg';
import { Gauge } from 'prom-client';
import type { DataSource } from 'typeorm';
import type { EventPublisher, OutboxMessage } from './event-publisher';
import { OutboxRepository } from './outbox.repository';

export interface OutboxRelayOptions {
  schema: string;
  dataSource: DataSource;
  /** For the dedicated LISTEN connection; the pool's connections are shared and can't hold LISTEN. */
  databaseUrl: string;
  publisher: EventPublisher;
  batchSize?: number;
  /** Fallback poll when no NOTIFY arrives (lost connection, rows inserted by hand). At most 2 s. */
  pollIntervalMs?: number;
  maxBackoffMs?: number;
  /** Sent rows older than this are deleted by the relay, a batch at a time (72 when unset). */
  retentionHours?: number;
  /** The app's scheduler registry, where the relay's passes are listed; one of its own without. */
  scheduler?: SchedulerRegistry;
}

const RETENTION_SWEEP_EVERY_MS = 10 * 60_000;
/** Sent rows per DELETE of the retention sweep. */
const RETENTION_BATCH = 1_000;
/** The wait before a lost or refused LISTEN connection is opened again. */
const RELISTEN_MS = 1_000;
/** The first retry wait after a failed round; it doubles up to `maxBackoffMs`. */
const FIRST_BACKOFF_MS = 100;

/** The relays running in this process, read when Prometheus scrapes the backlog. */
const runningRelays = new Set<OutboxRelay>();

/** Outbox backlog (docs/decisions/events.md): committed events not yet handed to the transport, per schema. */
export const outboxUnsentEvents = new Gauge({
  name: 'outbox_unsent_events',
  help: 'Events committed to the outbox and not yet published, by schema',
  labelNames: ['schema'],
  async collect() {
    for (const relay of runningRelays) {
      const backlog = await relay.backlog().catch(() => null);
      if (backlog) {
        this.set({ schema: relay.schema }, backlog.unsent);
        outboxOldestUnsent.set({ schema: relay.schema }, backlog.oldestSeconds);
      }
    }
  },
});
const outboxOldestUnsent = new Gauge({
  name: 'outbox_oldest_unsent_seconds',
  help: 'Age of the oldest unpublished outbox event, by schema (0 when none waits)',
  labelNames: ['schema'],
});

/**
 * Publishes committed outbox rows. Each round claims a batch with FOR UPDATE SKIP LOCKED, publishes
 * it and marks it sent in the same transaction, so concurrent replicas never claim the same row
 * and a crash before the commit leaves the rows for the next round (at-least-once; consumers
 * deduplicate by event id).
 *
 * The rounds run as a pass on the app's scheduler (`outbox-relay(<schema>)`), which never overlaps
 * itself and is waited for at stop. A NOTIFY from a committed insert starts the pass at once, so
 * the poll interval is only the fallback; a NOTIFY during a pass makes it go round again. A failed
 * round leaves the rows and waits a backoff (a one-shot retry, `outbox-retry(<schema>)`, or a
 * NOTIFY, ends it early). A lost LISTEN connection is opened again a second later
 * (`outbox-listen(<schema>)`); meanwhile the ticks poll. Sent rows past retention are deleted by a
 * second pass every ten minutes.
 */
export class OutboxRelay {
  private readonly logger: Logger;
  private readonly outbox: OutboxRepository;
  private readonly batchSize: number;
  private readonly pollIntervalMs: number;
  private readonly maxBackoffMs: number;
  private readonly relayPass: ScheduledPass;
  private readonly sweepPass: ScheduledPass;
  /** The try after a failed round's backoff. */
  private readonly retry: RetryTimer;
  /** The next LISTEN connection after one was lost or refused. */
  private readonly relisten: RetryTimer;
  private running = false;
  private listener: Client | undefined;
  /** A NOTIFY came since the current round claimed its batch. */
  private notified = false;
  private backoffMs = FIRST_BACKOFF_MS;
  /** Until then, after a failed round, a scheduled tick does not try again. */
  private retryAt = 0;

  constructor(private readonly options: OutboxRelayOptions) {
    this.logger = new Logger(`OutboxRelay(${options.schema})`);
    this.outbox = new OutboxRepository(options.schema);
    this.batchSize = options.batchSize ?? 500;
    this.pollIntervalMs = Math.min(options.pollIntervalMs ?? 1_000, 2_000);
    this.maxBackoffMs = options.maxBackoffMs ?? 10_000;
    const scheduler = options.scheduler ?? new SchedulerRegistry();
    this.relayPass = new ScheduledPass(scheduler, `outbox-relay(${options.schema})`, () => this.relayAll());
    this.sweepPass = new ScheduledPass(scheduler, `outbox-retention(${options.schema})`, () =>
      this.sweepSentRows(),
    );
    this.retry = new RetryTimer(scheduler, `outbox-retry(${options.schema})`);
    this.relisten = new RetryTimer(scheduler, `outbox-listen(${options.schema})`);
  }

  get schema(): string {
    return this.options.schema;
  }

  /** How many committed events wait, and for how long the oldest has. */
  async backlog(): Promise<{ unsent: number; oldestSeconds: number }> {
    return this.outbox.backlog(this.options.dataSource);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    runningRelays.add(this);
    void this.listen();
    this.relayPass.every(this.pollIntervalMs, { now: true });
    this.sweepPass.every(RETENTION_SWEEP_EVERY_MS, { now: true });
  }

  /** Takes the passes and retries off the scheduler, waits for the rounds in flight, then drops LISTEN. */
  async stop(): Promise<void> {
    this.running = false;
    runningRelays.delete(this);
    this.retry.cancel();
    this.relisten.cancel();
    await Promise.all([this.relayPass.stop(), this.sweepPass.stop()]);
    await this.listener?.end().catch(() => undefined);
    this.listener = undefined;
  }

  /** One claim-publish-mark round; returns how many rows were published. */
  async relayOnce(): Promise<number> {
    const { dataSource, publisher } = this.options;
    const runner = dataSource.createQueryRunner();
    await runner.connect();
    try {
      await runner.startTransaction();
      const rows = await this.outbox.claimUnsent(runner, this.batchSize);
      if (rows.length === 0) {
        await runner.commitTransaction();
        return 0;
      }
      const messages: OutboxMessage[] = rows.map((row) => ({
        id: row.id,
        topic: row.topic,
        key: row.message_key,
        eventType: row.event_type,
        envelope: row.envelope,
      }));
      await publisher.publish(messages);
      await this.outbox.markSent(
        runner,
        rows.map((row) => row.id),
      );
      await runner.commitTransaction();
      return rows.length;
    } catch (error) {
      if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
      throw error;
    } finally {
      await runner.release();
    }
  }

  /** The relay pass: rounds until the outbox is empty and no NOTIFY came meanwhile. */
  private async relayAll(): Promise<void> {
    if (Date.now() < this.retryAt && !this.notified) return;
    try {
      let published: number;
      do {
        this.notified = false;
        published = await this.relayOnce();
      } while (!this.relayPass.isStopped && (published === this.batchSize || this.notified));
      this.backoffMs = FIRST_BACKOFF_MS;
      this.retryAt = 0;
    } catch (error) {
      const wait = this.backoffMs;
      this.logger.warn({ err: error, retry_in_ms: wait }, 'outbox relay round failed; rows stay for retry');
      this.backoffMs = Math.min(wait * 2, this.maxBackoffMs);
      this.retryAt = Date.now() + wait;
      // One try after the backoff, then the schedule goes on.
      this.retry.schedule(wait, () => {
        this.retryAt = 0;
        void this.relayPass.runNow();
      });
    }
  }

  /** Holds one LISTEN connection until it is lost, then schedules the next one. */
  private async listen(): Promise<void> {
    const client = new Client({
      connectionString: this.options.databaseUrl,
      application_name: 'outbox-listen',
    });
    const closed = new Promise<void>((resolve) => {
      client.on('error', () => resolve());
      client.on('end', () => resolve());
    });
    client.on('notification', () => {
      this.notified = true;
      void this.relayPass.runNow();
    });
    try {
      await client.connect();
      await this.outbox.listen(client);
      this.listener = client;
      // Stopped while connecting: nobody would end this connection but the finally below.
      if (this.running) await closed;
    } catch (error) {
      this.logger.debug({ err: error }, 'outbox LISTEN connection failed; polling meanwhile');
    } finally {
      await client.end().catch(() => undefined);
    }
    if (this.running) this.relisten.schedule(RELISTEN_MS, () => void this.listen());
  }

  /**
   * Deletes sent rows past retention in batches (each its own short statement), until a batch
   * comes back short or the relay stops. Every replica's relay sweeps; the batches skip rows
   * another one holds.
   */
  private async sweepSentRows(): Promise<void> {
    const hours = this.options.retentionHours ?? 72;
    while (this.running) {
      const deleted = await this.outbox.deleteSentBefore(this.options.dataSource, hours, RETENTION_BATCH);
      // Anything but a full batch ends it (a count that is no number too: never loop on it).
      if (!(deleted >= RETENTION_BATCH)) break;
    }
  }
}
