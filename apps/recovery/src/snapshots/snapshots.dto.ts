import { SNAPSHOT_TRIGGERS, type SnapshotTrigger } from '@lib/contracts';
import { IsKeysetCursor, IsPageLimit } from '@lib/database';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import type { OmittedPart, SnapshotPayload } from './snapshot-payload';

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

  @IsPageLimit(100)
  limit = 50;

  /** Opaque; the `next_cursor` of the previous page. */
  @IsKeysetCursor()
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
  counts: {
    roles: number;
    channels: number;
    permission_overrides: number;
    /** Members who held roles, and bans; null where the snapshot does not keep them. */
    members_with_roles: number | null;
    bans: number | null;
    /** Custom emojis and stickers; null where the snapshot does not keep them (before version 3). */
    emojis: number | null;
    stickers: number | null;
  };
  /** Parts the snapshot left out, and why (the bot could not read them, or the size limit). */
  omitted: OmittedPart[];
  payload?: SnapshotPayload;
}

/** A deleted snapshot the owner can still bring back. */
export interface DeletedSnapshotView extends SnapshotSummaryView {
  deleted_at: string;
  deleted_by_platform_user_id: string;
  /** After this, retention purges it for good. */
  purge_after: string;
}
