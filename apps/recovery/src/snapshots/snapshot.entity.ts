import type { SnapshotTrigger } from '@lib/contracts';
import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { SnapshotPayload } from './snapshot-payload';

/** A frozen copy of a guild (docs/behaviour.md §2.3). Rows are written with raw SQL so the payload is serialised once. */
@Entity({ name: 'snapshots' })
export class Snapshot {
  @PrimaryColumn('uuid')
  id: string;

  @Column('uuid', { name: 'guild_id' })
  guildId: string;

  @Column('jsonb', { select: false })
  payload: SnapshotPayload;

  @Column('integer', { name: 'payload_size' })
  payloadSize: number;

  @Column('text')
  trigger: SnapshotTrigger;

  @Column('uuid', { name: 'created_by_user', nullable: true })
  createdByUser: string | null;

  @Column('text', { nullable: true })
  description: string | null;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;
}
