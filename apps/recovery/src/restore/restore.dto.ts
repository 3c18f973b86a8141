import { RESTORE_SCOPES, type RestoreScope } from '@lib/contracts';
import type { WithIsoDates } from '@lib/database';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsOptional,
  IsUUID,
  Matches,
  ValidateNested,
} from 'class-validator';
import type { RestoreDiff } from './restore-diff';
import type { RestoreJobRow } from './restore-jobs.repository';
import type { ProgressSummary } from './workflows/restore-contract';

export class PreviewRestoreDto {
  @IsUUID('all', { message: 'snapshot_id must be a UUID' })
  snapshot_id!: string;

  @IsArray()
  @ArrayMinSize(1, {
    message: `scope must name at least one of ${RESTORE_SCOPES.join(', ')}`,
  })
  @ArrayMaxSize(RESTORE_SCOPES.length)
  @ArrayUnique()
  @IsIn(RESTORE_SCOPES, { each: true, message: `each scope must be one of ${RESTORE_SCOPES.join(', ')}` })
  scope!: RestoreScope[];
}

export class RestoreOptionsDto {
  @IsOptional()
  @IsBoolean()
  create_pre_restore_snapshot: boolean = false;
}

export class StartRestoreDto extends PreviewRestoreDto {
  @Matches(/^sha256:[0-9a-f]{64}$/, {
    message: 'approved_diff_hash must be sha256:<64 hex>, as the preview returns it',
  })
  approved_diff_hash!: string;

  @IsOptional()
  @ValidateNested()
  @Type(() => RestoreOptionsDto)
  options: RestoreOptionsDto = new RestoreOptionsDto();
}

/** The preview body: the RestoreDiff (docs/behaviour.md §2.2) and the hash to approve it with. */
export type RestorePreviewView = RestoreDiff & { diff_hash: string };

/**
 * A restore job as the API answers it: its row, dates as ISO strings, without the requester's
 * platform user id; `progress` while it runs and the engine answers.
 */
export type RestoreJobView = Omit<
  WithIsoDates<RestoreJobRow>,
  // Internal: the platform wait an in-process run kept across a restart (its progress shows it).
  'requested_by_platform_user_id' | 'left_waiting' | 'new_webhooks'
> & {
  progress?: ProgressView;
  /**
   * The webhooks the restore made anew (a webhook's token cannot be restored: each has a new
   * address), by channel name and name. `address` is shown to the guild's owner only (whoever
   * holds it can post in the channel); null for anyone else.
   */
  new_webhooks: NewWebhookView[];
};

export interface NewWebhookView {
  webhook_id: string;
  name: string;
  channel_id: string;
  channel_name: string;
  address: string | null;
}

/**
 * A run's progress as the API answers it: each step with `label`, how the dashboard names it
 * (CHANGE_STEP_TABLE), so a new step's name is written once, beside the rest of its description.
 */
export type ProgressView = Omit<ProgressSummary, 'steps'> & {
  steps: (ProgressSummary['steps'][number] & { label: string })[];
};

/** The start answer (docs/behaviour.md §4.2): `job_id`, and the job's own fields beside it. */
export type RestoreStartView = RestoreJobView & { job_id: string };
