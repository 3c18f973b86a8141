import { Logger } from '@nestjs/common';
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
  /** Sent rows older than this are deleted by the relay. */
  retentionHours?: number;
}

const RETENTION_SWEEP_EVERY_MS = 10 * 60_000;

/** The relays running in this process, read when Prometheus scrapes the backlog. */
const runningRelays = new Set<OutboxRelay>();

/** Outbox backlog (docs/architecture.md): committed events not yet handed to the transport, per schema. */
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
 */
export class OutboxRelay {
  private readonly logger: Logger;
  private readonly outbox: OutboxRepository;
  private readonly batchSize: number;
  private readonly pollIntervalMs: number;
  private readonly maxBackoffMs: number;
  private running = false;
  private loop: Promise<void> | undefined;
  private listener: Client | undefined;
  private wake: (() => void) | undefined;
  private notified = false;
  private lastSweep = 0;

  constructor(private readonly options: OutboxRelayOptions) {
    this.logger = new Logger(`OutboxRelay(${options.schema})`);
    this.outbox = new OutboxRepository(options.schema);
    this.batchSize = options.batchSize ?? 500;
    this.pollIntervalMs = Math.min(options.pollIntervalMs ?? 1_000, 2_000);
    this.maxBackoffMs = options.maxBackoffMs ?? 10_000;
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
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    runningRelays.delete(this);
    this.wake?.();
    await this.loop;
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

  private async run(): Promise<void> {
    let backoff = 100;
    while (this.running) {
      try {
        this.notified = false;
        const published = await this.relayOnce();
        backoff = 100;
        if (published === this.batchSize) continue;
        if (published === 0) await this.sweepSentRows();
      } catch (error) {
        this.logger.warn(
          { err: error, retry_in_ms: backoff },
          'outbox relay round failed; rows stay for retry',
        );
        await this.sleep(backoff);
        backoff = Math.min(backoff * 2, this.maxBackoffMs);
        continue;
      }
      if (!this.notified) await this.sleep(this.pollIntervalMs);
    }
  }

  /** Sleeps until the timeout or a NOTIFY from a committed insert, whichever comes first. */
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = () => {
        this.wake = undefined;
        done();
      };
    });
  }

  private async listen(): Promise<void> {
    while (this.running) {
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
        this.wake?.();
      });
      try {
        await client.connect();
        await this.outbox.listen(client);
        this.listener = client;
        await closed;
      } catch (error) {
        this.logger.debug({ err: error }, 'outbox LISTEN connection failed; polling meanwhile');
      } finally {
        await client.end().catch(() => undefined);
      }
      if (this.running) await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }

  private async sweepSentRows(): Promise<void> {
    if (Date.now() - this.lastSweep < RETENTION_SWEEP_EVERY_MS) return;
    this.lastSweep = Date.now();
    const hours = this.options.retentionHours ?? 72;
    await this.outbox.deleteSentBefore(this.options.dataSource, hours);
  }
}
