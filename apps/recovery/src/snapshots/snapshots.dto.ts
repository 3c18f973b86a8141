import { SNAPSHOT_TRIGGERS, type SnapshotTrigger } from '@lib/contracts';
import { Transform, Type } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import type { SnapshotPayload } from './snapshot-payload';

export class CreateSnapshotDto {
  @IsOptional()
  @IsString()
  @MaxLength(500)
  description?: string;

  /** Only `manual` is accepted from users; the other triggers are the system's own. */
  @IsOptional()
  @IsIn(['manual'], { message: 'trigger must be manual' })
  trigger?: 'manual';
}

export class ListSnapshotsQuery {
  @IsOptional()
  @IsIn(SNAPSHOT_TRIGGERS)
  trigger?: SnapshotTrigger;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit = 50;

  /** Opaque; the `next_cursor` of the previous page. */
  @IsOptional()
  @Matches(/^[A-Za-z0-9_-]{1,200}$/, { message: 'cursor is not valid' })
  cursor?: string;
}

export class GetSnapshotQuery {
  @IsOptional()
  @Transform(({ value }) => value === 'true' || value === true)
  @IsBoolean()
  include_payload = false;
}

export interface SnapshotSummaryView {
  id: string;
  guild_id: string;
  trigger: SnapshotTrigger;
  size: number;
  description: string | null;
  created_by_user: string | null;
  created_at: string;
}

export interface SnapshotDetailView extends SnapshotSummaryView {
  version: number;
  counts: { roles: number; channels: number; permission_overrides: number };
  payload?: SnapshotPayload;
}
