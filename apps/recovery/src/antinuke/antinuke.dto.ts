import type { PlanCode } from '@lib/contracts';
import { IsKeysetCursor, IsPageLimit } from '@lib/database';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsString,
  Matches,
  Max,
  Min,
  ValidateIf,
} from 'class-validator';
import {
  ANTINUKE_SETTING_LIMITS,
  AUTO_ACTION_MODES,
  type AutoActionMode,
  PLATFORM_USER_ID_PATTERN,
} from './workflows/antinuke-contract';

const { threshold, window_seconds, exempt_user_ids } = ANTINUKE_SETTING_LIMITS;

/** Absent is allowed (the stored value stays); null is not a value. */
const UnlessAbsent = () => ValidateIf((_body: unknown, value: unknown) => value !== undefined);

/**
 * The whole setting: a PUT replaces it. `enabled` and `exempt_user_ids` came later; a body without
 * them (a client written before) keeps what is stored for them, so it neither switches AntiNuke
 * back on nor empties the list (docs/behaviour.md §1.6).
 */
export class UpdateAntiNukeSettingsDto {
  /** AntiNuke counts destructive actions and opens incidents; false stops both. Absent: unchanged. */
  @UnlessAbsent()
  @IsBoolean()
  enabled?: boolean;

  /**
   * Platform user ids whose actions are never counted (the owner's other bots, say): at most 50,
   * each a snowflake, no repeats. Absent: unchanged; `[]` exempts nobody.
   */
  @UnlessAbsent()
  @IsArray()
  @ArrayMaxSize(exempt_user_ids.max)
  @ArrayUnique()
  @IsString({ each: true })
  @Matches(PLATFORM_USER_ID_PATTERN, {
    each: true,
    message: 'each of exempt_user_ids must be a platform user id (17 to 20 digits)',
  })
  exempt_user_ids?: string[];

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

  /** Quarantine the actor when an incident opens: take their dangerous roles (needs ANTINUKE_AUTO_ACTION). */
  @IsBoolean()
  auto_action_enabled!: boolean;

  /**
   * What the auto-action does besides the quarantine: `quarantine` nothing more, `kick` or `ban`
   * the actor too. Absent: unchanged.
   */
  @UnlessAbsent()
  @IsIn(AUTO_ACTION_MODES)
  auto_action_mode?: AutoActionMode;

  /** Lock the guild down when an incident opens (needs ANTINUKE_AUTO_ACTION). Absent: unchanged. */
  @UnlessAbsent()
  @IsBoolean()
  auto_lockdown_enabled?: boolean;
}

export class ListIncidentsQuery {
  @IsPageLimit(100)
  limit = 50;

  /** Opaque; the `next_cursor` of the previous page. */
  @IsKeysetCursor()
  cursor?: string;
}

/** One exempt platform user, with the name the platform gives them when it could say. */
export interface ExemptUserView {
  platform_user_id: string;
  /** Nickname, display name or user name in the guild; null when the platform did not say (not a member, an outage). */
  name: string | null;
}

export interface AntiNukeView {
  guild_id: string;
  /** AntiNuke counts destructive actions and opens incidents (the owner's switch). */
  enabled: boolean;
  exempt_user_ids: string[];
  /** The same users, in the same order, with their names. */
  exempt_users: ExemptUserView[];
  threshold: number;
  window_seconds: number;
  auto_action_enabled: boolean;
  auto_action_mode: AutoActionMode;
  auto_lockdown_enabled: boolean;
  /** null while the defaults apply. */
  updated_at: string | null;
  plan_code: PlanCode;
  /** The plan includes ANTINUKE_DETECT. */
  detection_available: boolean;
  /** The plan includes ANTINUKE_AUTO_ACTION. */
  auto_action_available: boolean;
  /** The guild's AntiNuke workflow runs now; null when the workflow engine did not answer. */
  workflow_running: boolean | null;
  /** A change loosening AntiNuke that waits for its time or the owner; null when there is none. */
  pending_change: PendingChangeView | null;
  /** The caller is the guild's owner: they alone answer a pending change and undo snapshot deletes. */
  viewer_is_owner: boolean;
}

/** The setting's fields. */
export interface AntiNukeSettingsView {
  enabled: boolean;
  exempt_user_ids: string[];
  threshold: number;
  window_seconds: number;
  auto_action_enabled: boolean;
  auto_action_mode: AutoActionMode;
  auto_lockdown_enabled: boolean;
}

/**
 * A change that loosens AntiNuke, asked for by someone other than the owner: it applies at
 * `applies_at` unless the owner refuses it first (or applies it early).
 */
export interface PendingChangeView {
  id: string;
  requested_by_platform_user_id: string;
  /** Their name in the guild; null when the platform did not say. */
  requested_by_name: string | null;
  before: AntiNukeSettingsView;
  after: AntiNukeSettingsView;
  /** The fields `after` loosens (names of AntiNukeSettingsView's fields). */
  loosened: string[];
  requested_at: string;
  applies_at: string;
}

/** What a PUT did: applied (200, the setting) or held as the pending change (202). */
export type AntiNukeUpdate =
  { status: 'applied'; body: AntiNukeView } | { status: 'pending'; body: PendingChangeView };
