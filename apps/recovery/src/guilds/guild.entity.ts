import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** The registry entry mapping our guild id to the platform's (docs/architecture.md "guild registry"). */
@Entity({ name: 'guilds' })
export class Guild {
  @PrimaryColumn('uuid')
  id: string;

  @Column('text', { name: 'platform_guild_id' })
  platformGuildId: string;

  @Column('text')
  name: string;

  @Column('text', { name: 'owner_platform_user_id' })
  ownerPlatformUserId: string;

  @Column('timestamptz', { name: 'bot_installed_at', nullable: true })
  botInstalledAt: Date | null;

  @Column('timestamptz', { name: 'removed_at', nullable: true })
  removedAt: Date | null;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', name: 'updated_at' })
  updatedAt: Date;

  get active(): boolean {
    return this.botInstalledAt !== null && this.removedAt === null;
  }
}
