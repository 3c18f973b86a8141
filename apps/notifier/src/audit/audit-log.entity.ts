import { SnakeCaseColumn } from '@lib/database';
import { CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** Append-only record of every domain event, one row per event id. */
@Entity({ name: 'audit_log' })
export class AuditLogEntry {
  @PrimaryColumn('uuid', { name: 'event_id' })
  eventId: string;

  @SnakeCaseColumn('text')
  eventType: string;

  @SnakeCaseColumn('text')
  producer: string;

  @SnakeCaseColumn('text')
  guildId: string;

  @SnakeCaseColumn('text')
  aggregateType: string;

  @SnakeCaseColumn('text')
  aggregateId: string;

  @SnakeCaseColumn('timestamptz')
  occurredAt: Date;

  @SnakeCaseColumn('text', { nullable: true })
  correlationId: string | null;

  @SnakeCaseColumn('jsonb')
  payload: unknown;

  @CreateDateColumn({ type: 'timestamptz', name: 'recorded_at' })
  recordedAt: Date;
}
