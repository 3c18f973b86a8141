import {
  type DestructiveAction,
  type DestructiveActionKind,
  type MemberRolesRemoved,
} from '../destructive-action';
import {
  ANTINUKE_SETTING_LIMITS,
  AUTO_ACTION_MODES,
  DEFAULT_ANTINUKE_SETTINGS,
  PLATFORM_USER_ID_PATTERN,
  type AntiNukeSettings,
  type AutoActionMode,
  type IncidentTarget,
} from './antinuke-contract';
import type { ScoredAction } from './raid-score';

/*
 * What a signal to a guild's AntiNuke run is checked against before it counts: a signal bypasses
 * the API's validation and live sync's mapping, so each action, removal and setting is taken only
 * when it is one of this guild's and well formed.
 */
/** An action's weight as counted: a signalled one is checked, as a signal bypasses live sync's mapping. */
const MAX_ACTION_WEIGHT = 1_000;

/** The member a ban or kick removed, as its incident records it; null for other kinds. */
export function memberTarget(action: DestructiveAction, counted: ScoredAction): IncidentTarget | null {
  if (counted.kind !== 'member_ban' && counted.kind !== 'member_kick') return null;
  if (typeof action.target_id !== 'string' || action.target_id === '') return null;
  return {
    kind: counted.kind,
    target_user_id: action.target_id,
    role_id: null,
    role_name: null,
    audit_log_entry_id: counted.audit_log_entry_id,
    at: counted.at,
  };
}

/** One target per role taken, or null when the signal is not a valid removal of this guild. */
export function roleTargets(
  guildId: string,
  removal: MemberRolesRemoved,
  now: number,
): IncidentTarget[] | null {
  const nonEmpty = (value: unknown): value is string => typeof value === 'string' && value !== '';
  if (
    typeof removal !== 'object' ||
    removal === null ||
    removal.guild_id !== guildId ||
    !nonEmpty(removal.actor_platform_user_id) ||
    !nonEmpty(removal.target_user_id) ||
    !nonEmpty(removal.audit_log_entry_id) ||
    !Array.isArray(removal.roles)
  ) {
    return null;
  }
  const at = platformTime(removal.at, now);
  return removal.roles
    .filter((role) => typeof role === 'object' && role !== null && nonEmpty(role.id))
    .map((role) => ({
      kind: 'member_role_remove',
      target_user_id: removal.target_user_id,
      role_id: role.id,
      role_name: typeof role.name === 'string' ? role.name : null,
      audit_log_entry_id: removal.audit_log_entry_id,
      at,
    }));
}

/**
 * The platform's time of an action; never later than now, so a skewed clock cannot make
 * everything else look stale.
 */
function platformTime(at: string, now: number): number {
  const parsed = Date.parse(at);
  return Number.isFinite(parsed) ? Math.min(parsed, now) : now;
}

/**
 * The action as the detector counts it, or null when it is not a valid action of this guild or
 * not of the kinds counted. A missing or invalid weight (a live sync from before weights) is one.
 * Live sync's immediate quarantine counts with it too, so both score an action alike.
 */
export function countedAction(
  guildId: string,
  action: DestructiveAction,
  now: number,
  kinds: readonly DestructiveActionKind[],
): ScoredAction | null {
  if (
    typeof action !== 'object' ||
    action === null ||
    action.guild_id !== guildId ||
    !(kinds as readonly string[]).includes(action.kind) ||
    typeof action.actor_platform_user_id !== 'string' ||
    action.actor_platform_user_id === '' ||
    typeof action.audit_log_entry_id !== 'string' ||
    action.audit_log_entry_id === ''
  ) {
    return null;
  }
  const weight = action.weight;
  return {
    kind: action.kind,
    weight:
      Number.isInteger(weight) && (weight as number) >= 1 ? Math.min(weight as number, MAX_ACTION_WEIGHT) : 1,
    actor_platform_user_id: action.actor_platform_user_id,
    audit_log_entry_id: action.audit_log_entry_id,
    at: platformTime(action.at, now),
  };
}

/**
 * A signalled setting, each field checked on its own: a bad or missing one keeps the current value
 * (a signal bypasses the API's validation; an old run's input lacks the newer fields).
 */
export function validSettings(
  next: Partial<AntiNukeSettings> | undefined,
  current: AntiNukeSettings,
): AntiNukeSettings {
  const inRange = (value: unknown, limits: { min: number; max: number }): value is number =>
    Number.isInteger(value) && (value as number) >= limits.min && (value as number) <= limits.max;
  const { threshold, window_seconds } = ANTINUKE_SETTING_LIMITS;
  return {
    enabled: typeof next?.enabled === 'boolean' ? next.enabled : current.enabled,
    exempt_user_ids: validExemptList(next?.exempt_user_ids) ?? [...current.exempt_user_ids],
    threshold: inRange(next?.threshold, threshold) ? next.threshold : current.threshold,
    window_seconds: inRange(next?.window_seconds, window_seconds)
      ? next.window_seconds
      : current.window_seconds,
    auto_action_enabled:
      typeof next?.auto_action_enabled === 'boolean' ? next.auto_action_enabled : current.auto_action_enabled,
    auto_action_mode: (AUTO_ACTION_MODES as readonly unknown[]).includes(next?.auto_action_mode)
      ? (next!.auto_action_mode as AutoActionMode)
      : (current.auto_action_mode ?? DEFAULT_ANTINUKE_SETTINGS.auto_action_mode),
    auto_lockdown_enabled:
      typeof next?.auto_lockdown_enabled === 'boolean'
        ? next.auto_lockdown_enabled
        : (current.auto_lockdown_enabled ?? DEFAULT_ANTINUKE_SETTINGS.auto_lockdown_enabled),
  };
}

function validExemptList(value: unknown): string[] | null {
  if (!Array.isArray(value) || value.length > ANTINUKE_SETTING_LIMITS.exempt_user_ids.max) return null;
  const ids = value.filter((id): id is string => typeof id === 'string' && PLATFORM_USER_ID_PATTERN.test(id));
  return ids.length === value.length ? [...new Set(ids)] : null;
}
