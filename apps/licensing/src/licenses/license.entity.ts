import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** A guild's licence, updated in place; a guild without a row is on FREE. */
@Entity({ name: 'licenses' })
export class License {
  @PrimaryColumn('uuid')
  id: string;

  @Column('uuid', { name: 'guild_id' })
  guildId: string;

  @Column('uuid', { name: 'plan_id' })
  planId: string;

  @Column('text')
  status: 'active';

  /** End of the paid period; null on FREE. Past it the licence counts as FREE at once. */
  @Column('timestamptz', { name: 'expires_at', nullable: true })
  expiresAt: Date | null;

  /**
   * A renewing subscription keeps the licence in force past `expiresAt` until this time (renewal
   * charge and past_due retries); null when it ends at `expiresAt`.
   */
  @Column('timestamptz', { name: 'grace_until', nullable: true })
  graceUntil: Date | null;

  @Column('uuid', { name: 'subscription_id', nullable: true })
  subscriptionId: string | null;

  /** The newest billing event applied; null on a row billing reserved before any event. */
  @Column('timestamptz', { name: 'last_event_at', nullable: true })
  lastEventAt: Date | null;

  @Column('uuid', { name: 'last_event_id', nullable: true })
  lastEventId: string | null;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', name: 'updated_at' })
  updatedAt: Date;
}
