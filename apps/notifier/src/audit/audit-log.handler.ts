import { Injectable } from '@nestjs/common';
import type { DomainEvent } from '@lib/contracts';
import type { EventHandler } from '@lib/messaging';
import type { EntityManager } from 'typeorm';
import { AuditLogRepository } from './audit-log.repository';

/** Audit consumes every event of every producer and appends it (docs/decisions/events.md). */
@Injectable()
export class AuditLogHandler implements EventHandler {
  readonly consumer = 'audit';
  readonly eventTypes = 'all';

  constructor(private readonly auditLog: AuditLogRepository) {}

  handle(event: DomainEvent, manager: EntityManager): Promise<void> {
    return this.auditLog.append(manager, event);
  }
}
