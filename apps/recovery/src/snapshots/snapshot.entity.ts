import { SnakeCaseColumn } from '@lib/database';
import type { SnapshotTrigger } from '@lib/contracts';
import { Entity, PrimaryColumn } from 'typeorm';
import type { SnapshotPayload } from './snapshot-payload';

/** A frozen copy of a guild (docs/behaviour.md §2.3). Rows are written with raw SQL so the payload is serialised once. */
@Entity({ name: 'snapshots' })
export class Snapshot {
  @PrimaryColumn('uuid')
  id: string;

  @SnakeCaseColumn('uuid')
  guildId: string;

  @SnakeCaseColumn('jsonb', { select: false })
  payload: SnapshotPayload;

  @SnakeCaseColumn('integer')
  payloadSize: number;

  @SnakeCaseColumn('text')
  trigger: SnapshotTrigger;

  @SnakeCaseColumn('uuid', { nullable: true })
  createdByUser: string | null;

  @SnakeCaseColumn('text', { nullable: true })
  description: string | null;

  @SnakeCaseColumn('timestamptz')
  createdAt: Date;
}
