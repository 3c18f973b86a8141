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

  @Column('uuid', { name: 'subscription_id', nullable: true })
  subscriptionId: string | null;

  @Column('timestamptz', { name: 'last_event_at' })
  lastEventAt: Date;

  @Column('uuid', { name: 'last_event_id' })
  lastEventId: string;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', name: 'updated_at' })
  updatedAt: Date;
}
