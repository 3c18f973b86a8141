import type { RestoreScope } from './events';

/** Plan codes in rank order (docs/behaviour.md appendix: FREE 0, PRO 1, ENTERPRISE 2). */
export const PLAN_CODES = ['FREE', 'PRO', 'ENTERPRISE'] as const;
export type PlanCode = (typeof PLAN_CODES)[number];

export function isPlanCode(value: unknown): value is PlanCode {
  return typeof value === 'string' && (PLAN_CODES as readonly string[]).includes(value);
}

/** A plan's rank; a higher rank is an upgrade. */
export function planRank(code: PlanCode): number {
  return PLAN_CODES.indexOf(code);
}

/** Features a plan can grant; every gated action names exactly one. */
export const PLAN_FEATURES = [
  'RECOVERY_RESTORE',
  'RECOVERY_SNAPSHOT_MANUAL',
  'RECOVERY_SNAPSHOT_SCHEDULED',
  'RECOVERY_LIVE_SYNC',
  'ANTINUKE_DETECT',
  'ANTINUKE_AUTO_ACTION',
] as const;
export type PlanFeature = (typeof PLAN_FEATURES)[number];

export interface PlanLimits {
  /** Manual snapshot slots (docs/behaviour.md §8); the other triggers skip this check. */
  snapshot_manual_max: number;
  /** Days a `scheduled` snapshot is kept; null where the plan has no scheduled snapshots. */
  scheduled_snapshot_retention_days: number | null;
  /** Days the guild's audit log entries are kept; older ones are deleted by the notifier's retention. */
  audit_log_retention_days: number;
  /**
   * Bytes of images (custom emojis, stickers, the guild's icon, banner and splashes) the guild's
   * snapshots may keep, each image counted once however many snapshots hold it; 0 keeps none.
   */
  snapshot_image_bytes: number;
}

/** A plan as licensing serves it (`GET /internal/v1/plans`). */
export interface PlanDefinition {
  code: PlanCode;
  rank: number;
  name: string;
  price_krw: number;
  features: PlanFeature[];
  /** What a restore may put back on this plan (empty where restores are not included). */
  restore_scopes: RestoreScope[];
  limits: PlanLimits;
}

/**
 * What a guild may do right now (`GET /internal/v1/guilds/{id}/entitlements`). A paid licence
 * past `expires_at` is served as FREE with `status: 'expired'` and its plan in `licensed_plan_code`.
 */
/** Licensing's answer to `POST /internal/v1/guilds/{guildId}/license` (billing's reservation). */
export interface ReservedLicense {
  guild_id: string;
  license_id: string;
}

export interface Entitlements {
  guild_id: string;
  license_id: string | null;
  /** The plan in force: FREE when there is no licence or it has expired. */
  plan_code: PlanCode;
  /** The plan on the licence row, whether or not it is still in force. */
  licensed_plan_code: PlanCode;
  status: 'active' | 'expired';
  features: PlanFeature[];
  /** The plan in force's restore scopes. */
  restore_scopes: RestoreScope[];
  limits: PlanLimits;
  expires_at: string | null;
}
