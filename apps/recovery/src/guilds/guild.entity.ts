import { SnakeCaseColumn, TimestampedEntity } from '@lib/database';
import { Entity, PrimaryColumn } from 'typeorm';

/** The registry entry mapping our guild id to the platform's (docs/decisions/guild-registry.md). */
@Entity({ name: 'guilds' })
export class Guild extends TimestampedEntity {
  @PrimaryColumn('uuid')
  id: string;

  @SnakeCaseColumn('text')
  platformGuildId: string;

  @SnakeCaseColumn('text')
  name: string;

  @SnakeCaseColumn('text')
  ownerPlatformUserId: string;

  @SnakeCaseColumn('timestamptz', { nullable: true })
  botInstalledAt: Date | null;

  @SnakeCaseColumn('timestamptz', { nullable: true })
  removedAt: Date | null;

  /** Moves on whenever who may manage the guild can have changed (a bigint, read as a string). */
  @SnakeCaseColumn('bigint', { default: 0 })
  accessGeneration: string;

  get active(): boolean {
    return this.botInstalledAt !== null && this.removedAt === null;
  }
}
