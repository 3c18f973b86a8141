import { SnakeCaseColumn, TimestampedEntity } from '@lib/database';
import { Entity, PrimaryColumn } from 'typeorm';

/** A guild's licence, updated in place; a guild without a row is on FREE. */
@Entity({ name: 'licenses' })
export class License extends TimestampedEntity {
  @PrimaryColumn('uuid')
  id: string;

  @SnakeCaseColumn('uuid')
  guildId: string;

  @SnakeCaseColumn('uuid')
  planId: string;

  @SnakeCaseColumn('text')
  status: 'active';

  /** End of the paid period; null on FREE. Past it the licence counts as FREE at once. */
  @SnakeCaseColumn('timestamptz', { nullable: true })
  expiresAt: Date | null;

  /**
   * A renewing subscription keeps the licence in force past `expiresAt` until this time (renewal
   * charge and past_due retries); null when it ends at `expiresAt`.
   */
  @SnakeCaseColumn('timestamptz', { nullable: true })
  graceUntil: Date | null;

  @SnakeCaseColumn('uuid', { nullable: true })
  subscriptionId: string | null;

  /** The newest billing event applied; null on a row billing reserved before any event. */
  @SnakeCaseColumn('timestamptz', { nullable: true })
  lastEventAt: Date | null;

  @SnakeCaseColumn('uuid', { nullable: true })
  lastEventId: string | null;
}
