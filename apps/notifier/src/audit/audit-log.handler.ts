import { Injectable } from '@nestjs/common';
import type { DomainEvent } from '@lib/contracts';
import type { EventHandler } from '@lib/messaging';
import type { EntityManager } from 'typeorm';
import { AuditLogEntry } from './audit-log.entity';

/** Audit consumes every event of every producer and appends it (ARCHITECTURE.md "Events"). */
@Injectable()
export class AuditLogHandler implements EventHandler {
  readonly consumer = 'audit';
  readonly eventTypes = 'all';

  async handle(event: DomainEvent, manager: EntityManager): Promise<void> {
    await manager
      .createQueryBuilder()
      .insert()
      .into(AuditLogEntry)
      .values({
        eventId: event.id,
        eventType: event.type,
        producer: event.producer,
        guildId: event.guild_id,
        aggregateType: event.aggregate_type,
        aggregateId: event.aggregate_id,
        occurredAt: new Date(event.occurred_at),
        correlationId: event.correlation_id,
        payload: event.payload,
      })
      .orIgnore()
      .execute();
  }
}
