import type { DomainEvent, EventType } from '@lib/contracts';
import type { EntityManager } from 'typeorm';

/**
 * One effect of consuming events. The effect runs inside `manager`'s transaction, which also
 * records `(consumer, event id)`; a redelivered event never reaches `handle` twice.
 */
export interface EventHandler {
  /** Name of the effect, unique in the service (e.g. `audit`, `license-upgrade`). */
  readonly consumer: string;
  readonly eventTypes: readonly EventType[] | 'all';
  handle(event: DomainEvent, manager: EntityManager): Promise<void>;
}

/** The event can never be applied (bad data, unknown reference): record it failed and move on. */
export class PermanentEventError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PermanentEventError';
  }
}
