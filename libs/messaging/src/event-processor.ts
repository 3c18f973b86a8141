import { Logger } from '@nestjs/common';
import type { DomainEvent } from '@lib/contracts';
import { Counter } from 'prom-client';
import type { DataSource, EntityManager } from 'typeorm';
import { type EventHandler, PermanentEventError } from './event-handler';
import { ProcessedEventsRepository } from './processed-events.repository';

export const eventsFailedCounter = new Counter({
  name: 'events_failed_total',
  help: 'Events set aside as permanently failed (alert when it grows)',
  labelNames: ['consumer', 'event_type'],
});

export const eventsProcessedCounter = new Counter({
  name: 'events_processed_total',
  help: 'Events applied by a consumer (redeliveries excluded)',
  labelNames: ['consumer', 'event_type'],
});

/**
 * Applies events to handlers exactly once per (handler, event). Transport-agnostic: the Kafka
 * consumer feeds it batches; standalone mode feeds it from the outbox directly.
 */
export class EventProcessor {
  private readonly logger = new Logger(EventProcessor.name);
  private readonly processed: ProcessedEventsRepository;

  constructor(
    private readonly dataSource: DataSource,
    schema: string,
    private readonly handlers: readonly EventHandler[],
  ) {
    this.processed = new ProcessedEventsRepository(schema);
  }

  /**
   * Throws only for errors worth retrying (database or platform down); the caller redelivers.
   * A PermanentEventError is recorded as failed and does not stop the batch.
   */
  async process(events: readonly DomainEvent[]): Promise<void> {
    for (const handler of this.handlers) {
      const relevant = events.filter(
        (e) => handler.eventTypes === 'all' || handler.eventTypes.includes(e.type),
      );
      if (relevant.length === 0) continue;
      try {
        // Fast path: the whole batch in one transaction.
        await this.dataSource.transaction((manager) => this.apply(handler, relevant, manager));
      } catch (error) {
        if (relevant.length === 1 && !(error instanceof PermanentEventError)) throw error;
        // Find the culprit: one transaction per event, set aside what can never succeed.
        for (const event of relevant) await this.processOne(handler, event);
      }
    }
  }

  /** Records a message that is not a valid event at all, so the partition can move on. */
  async recordMalformed(consumer: string, reference: string, reason: string): Promise<void> {
    this.logger.error({ consumer, reference, reason }, 'malformed event set aside');
    eventsFailedCounter.inc({ consumer, event_type: 'malformed' });
    await this.recordFailure(consumer, reference, 'malformed', reason);
  }

  private async processOne(handler: EventHandler, event: DomainEvent): Promise<void> {
    try {
      await this.dataSource.transaction((manager) => this.apply(handler, [event], manager));
    } catch (error) {
      if (!(error instanceof PermanentEventError)) throw error;
      this.logger.error(
        { consumer: handler.consumer, event_id: event.id, event_type: event.type, reason: error.message },
        'event cannot be applied; recorded as failed',
      );
      eventsFailedCounter.inc({ consumer: handler.consumer, event_type: event.type });
      await this.recordFailure(handler.consumer, event.id, event.type, error.message);
    }
  }

  private async apply(handler: EventHandler, events: DomainEvent[], manager: EntityManager): Promise<void> {
    const fresh = new Set(await this.processed.claim(manager, handler.consumer, events));
    for (const event of events) {
      // delete: a batch may carry the same event twice (redelivery within one fetch).
      if (!fresh.delete(event.id)) continue;
      await handler.handle(event, manager);
      eventsProcessedCounter.inc({ consumer: handler.consumer, event_type: event.type });
    }
  }

  private async recordFailure(
    consumer: string,
    eventId: string,
    eventType: string,
    error: string,
  ): Promise<void> {
    await this.processed.recordFailure(this.dataSource, { consumer, eventId, eventType, error });
  }
}
