import { Injectable } from '@nestjs/common';
import type { DomainEvent } from '@lib/contracts';
import { keysetStart, keysetTimeSql } from '@lib/database';
import { DataSource, type EntityManager } from 'typeorm';
import { AuditLogEntry } from './audit-log.entity';

export interface AuditRow {
  event_id: string;
  event_type: string;
  producer: string;
  aggregate_type: string;
  aggregate_id: string;
  occurred_at: Date;
  correlation_id: string | null;
  payload: Record<string, unknown>;
  recorded_at: Date;
  cursor_at: string;
}

export interface AuditLogFilter {
  guildId: string;
  eventType?: string;
  /** Inclusive, ISO 8601. */
  from?: string;
  /** Exclusive, ISO 8601. */
  to?: string;
  cursor?: string;
  limit: number;
}

/** `notification.audit_log`: every event of every producer, appended once, read newest first. */
@Injectable()
export class AuditLogRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Appends the event unless it is there already (a redelivery), in the consumer's transaction. */
  async append(manager: EntityManager, event: DomainEvent): Promise<void> {
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

  /** `limit + 1` rows of the guild's entries after the cursor, newest first (see keysetPage). */
  async list(filter: AuditLogFilter): Promise<AuditRow[]> {
    const params: unknown[] = [filter.guildId];
    const conditions = ['guild_id = $1'];
    if (filter.eventType) conditions.push(`event_type = $${params.push(filter.eventType)}`);
    if (filter.from) conditions.push(`occurred_at >= $${params.push(filter.from)}::timestamptz`);
    if (filter.to) conditions.push(`occurred_at < $${params.push(filter.to)}::timestamptz`);
    const after = keysetStart(filter.cursor);
    if (after.at !== null) {
      conditions.push(
        `(occurred_at, event_id) < ($${params.push(after.at)}::timestamptz, $${params.push(after.id)}::uuid)`,
      );
    }
    return this.dataSource.query<AuditRow[]>(
      `SELECT event_id, event_type, producer, aggregate_type, aggregate_id, occurred_at, correlation_id,
              payload, recorded_at, ${keysetTimeSql('occurred_at')} AS cursor_at
         FROM notification.audit_log
        WHERE ${conditions.join(' AND ')}
        ORDER BY occurred_at DESC, event_id DESC
        LIMIT $${params.push(filter.limit + 1)}`,
      params,
    );
  }
}
