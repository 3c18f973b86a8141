import type { PlanCode } from '@lib/contracts';
import { Type } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, Matches, Max, Min } from 'class-validator';
import { ANTINUKE_SETTING_LIMITS } from './workflows/antinuke-contract';

const { threshold, window_seconds } = ANTINUKE_SETTING_LIMITS;

/** The whole setting: a PUT replaces it. */
export class UpdateAntiNukeSettingsDto {
  /** How many actions of one kind by one actor open an incident. */
  @IsInt()
  @Min(threshold.min)
  @Max(threshold.max)
  threshold!: number;

  /** The window, in seconds, those actions must fall within. */
  @IsInt()
  @Min(window_seconds.min)
  @Max(window_seconds.max)
  window_seconds!: number;

  /** Remove the actor's roles when an incident opens (needs ANTINUKE_AUTO_ACTION). */
  @IsBoolean()
  auto_action_enabled!: boolean;
}

export class ListIncidentsQuery {
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

export interface AntiNukeView {
  guild_id: string;
  threshold: number;
  window_seconds: number;
  auto_action_enabled: boolean;
  /** null while the defaults apply. */
  updated_at: string | null;
  plan_code: PlanCode;
  /** The plan includes ANTINUKE_DETECT. */
  detection_available: boolean;
  /** The plan includes ANTINUKE_AUTO_ACTION. */
  auto_action_available: boolean;
  /** The guild's AntiNuke workflow runs now; null when the workflow engine did not answer. */
  workflow_running: boolean | null;
}
