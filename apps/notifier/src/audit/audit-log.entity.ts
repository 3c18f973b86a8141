import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** Append-only record of every domain event, one row per event id. */
@Entity({ name: 'audit_log' })
export class AuditLogEntry {
  @PrimaryColumn('uuid', { name: 'event_id' })
  eventId: string;

  @Column('text', { name: 'event_type' })
  eventType: string;

  @Column('text')
  producer: string;

  @Column('text', { name: 'guild_id' })
  guildId: string;

  @Column('text', { name: 'aggregate_type' })
  aggregateType: string;

  @Column('text', { name: 'aggregate_id' })
  aggregateId: string;

  @Column('timestamptz', { name: 'occurred_at' })
  occurredAt: Date;

  @Column('text', { name: 'correlation_id', nullable: true })
  correlationId: string | null;

  @Column('jsonb')
  payload: unknown;

  @CreateDateColumn({ type: 'timestamptz', name: 'recorded_at' })
  recordedAt: Date;
}
