import type { EventEnvelope } from './envelope';
import type { PlanCode, PlanFeature } from './plans';

export const SNAPSHOT_TRIGGERS = ['manual', 'scheduled', 'antinuke', 'pre_restore'] as const;
export type SnapshotTrigger = (typeof SNAPSHOT_TRIGGERS)[number];

/**
 * What a restore can put back. Members' roles and bans, then the guild's custom emojis, stickers,
 * images (icon, banner, splashes) AutoMod rules and webhooks, and its welcome screen and onboarding
 * (`onboarding`), come after the spec's four, and only plans that list them in `restore_scopes`
 * may ask for them.
 */
export const RESTORE_SCOPES = [
  'roles',
  'channels',
  'permission_overrides',
  'guild_settings',
  'member_roles',
  'bans',
  'emojis',
  'stickers',
  'guild_images',
  'automod',
  'webhooks',
  'onboarding',
] as const;
export type RestoreScope = (typeof RESTORE_SCOPES)[number];

/** The spec's four: what a restore puts back unless the user adds members' roles and bans. */
export const DEFAULT_RESTORE_SCOPES: readonly RestoreScope[] = [
  'roles',
  'channels',
  'permission_overrides',
  'guild_settings',
];

/** Why a restore ended `canceled`: the user canceled it, or the guild was deleted during the run. */
export const RESTORE_CANCEL_REASONS = ['user', 'guild_deleted'] as const;
export type RestoreCancelReason = (typeof RESTORE_CANCEL_REASONS)[number];

/** Counts of what a restore changed, per category. */
export interface RestoreResultSummary {
  roles_created: number;
  roles_updated: number;
  roles_deleted: number;
  channels_created: number;
  channels_updated: number;
  channels_deleted: number;
  overrides_applied: number;
  overrides_removed: number;
  guild_settings_updated: number;
  /** Roles the bot cannot manage (above its highest role); reported, not attempted. */
  skipped: number;
  /** Members given back roles they held (one update each); with the `member_roles` scope. */
  members_updated?: number;
  /** Role assignments given back, over all members; with the `member_roles` scope. */
  member_roles_restored?: number;
  /**
   * Members who held roles in the snapshot and are no longer in the guild: the platform does not
   * let a bot add someone back without their consent, so they are reported, not re-added.
   */
  members_absent?: number;
  /** Bans lifted (bans made since the snapshot); with the `bans` scope. */
  bans_lifted?: number;
  /** Custom emojis made anew, renamed or given their roles back, and deleted; with `emojis`. */
  emojis_created?: number;
  emojis_updated?: number;
  emojis_deleted?: number;
  /** The same for stickers; with `stickers`. */
  stickers_created?: number;
  stickers_updated?: number;
  stickers_deleted?: number;
  /** The guild's icon, banner, splash and discovery splash put back; with `guild_images`. */
  guild_images_updated?: number;
  /** AutoMod rules made anew, set back and deleted; with `automod`. */
  automod_rules_created?: number;
  automod_rules_updated?: number;
  automod_rules_deleted?: number;
  /**
   * With `onboarding`: onboarding prompts made anew and removed; `onboarding_updated` counts the
   * prompts set back, and the onboarding's own fields and the welcome screen, one each, when put back.
   */
  onboarding_prompts_created?: number;
  onboarding_updated?: number;
  onboarding_prompts_deleted?: number;
  /**
   * Webhooks made anew (each with a new address, listed on the job for the guild's owner only),
   * set back and deleted; with `webhooks`.
   */
  webhooks_created?: number;
  webhooks_updated?: number;
  webhooks_deleted?: number;
}

export const ANTINUKE_SETTINGS_OUTCOMES = [
  'applied',
  'pending',
  'approved',
  'refused',
  'applied_after_delay',
  'self_exemption_refused',
] as const;
export type AntiNukeSettingsOutcome = (typeof ANTINUKE_SETTINGS_OUTCOMES)[number];

/** A guild's AntiNuke setting as events carry it. */
export interface AntiNukeSettingsFacts {
  enabled: boolean;
  exempt_user_ids: string[];
  threshold: number;
  window_seconds: number;
  auto_action_enabled: boolean;
  /** What auto-action does to the actor; absent from events written before it existed. */
  auto_action_mode?: 'quarantine' | 'kick' | 'ban';
  /** An incident locks the guild down; absent from events written before it existed. */
  auto_lockdown_enabled?: boolean;
}

/**
 * Payloads of every domain event of docs/behaviour.md §6. Fields the spec lists come first; the rest are what
 * the consumers need so that none of them has to call back the producer.
 */
export interface EventPayloads {
  // recovery
  RestoreStarted: {
    restore_job_id: string;
    snapshot_id: string;
    guild_id: string;
    scope: RestoreScope[];
    requested_by_user: string;
    /** Who started it; absent from events written before it was recorded. */
    requested_by_platform_user_id?: string;
    /** The guild's owner, who is told when someone else starts a restore; absent as above. */
    owner_platform_user_id?: string;
    guild_name?: string;
  };
  RestoreCompleted: {
    restore_job_id: string;
    snapshot_id: string;
    requested_by_user: string;
    /** Who gets the DM; null only for jobs started before it was recorded. */
    requested_by_platform_user_id: string | null;
    guild_name: string;
    result_summary: RestoreResultSummary;
    duration_ms: number;
    pre_restore_snapshot_id: string | null;
    /**
     * The job asked for a pre-restore snapshot (`options.create_pre_restore_snapshot`): with a null
     * id, it could not be made. Absent in events written before it was recorded.
     */
    pre_restore_snapshot_requested?: boolean;
  };
  /** A run that failed (docs/behaviour.md §3.1); a canceled one is `RestoreCanceled`. */
  RestoreFailed: {
    restore_job_id: string;
    snapshot_id: string;
    requested_by_user: string;
    requested_by_platform_user_id: string | null;
    guild_name: string;
    status: 'failed';
    /** The failure type (e.g. PermissionDenied, PlatformUnavailable). */
    error_code: string;
    error_message: string;
    pre_restore_snapshot_id: string | null;
    pre_restore_snapshot_requested?: boolean;
  };
  /** A run that ended `canceled`: by the user, or because the guild was deleted during the run. */
  RestoreCanceled: {
    restore_job_id: string;
    snapshot_id: string;
    requested_by_user: string;
    requested_by_platform_user_id: string | null;
    guild_name: string;
    reason: RestoreCancelReason;
    pre_restore_snapshot_id: string | null;
    pre_restore_snapshot_requested: boolean;
  };
  SnapshotCreated: {
    snapshot_id: string;
    guild_id: string;
    trigger: SnapshotTrigger;
    created_by_user: string | null;
    guild_name: string;
    /** The platform user who asked (dashboard or slash command), so the DM needs no lookup. */
    created_by_platform_user_id: string | null;
    size: number;
  };
  AntiNukeIncidentOpened: {
    incident_id: string;
    guild_id: string;
    /** Null when the bot was removed and could not learn who removed it (`action` `bot_removed`). */
    actor_platform_user_id: string | null;
    /** What the actor did (`mixed`: several kinds), or `bot_removed` / `bot_audit_log_lost`. */
    action: string;
    count: number;
    /** The incident's snapshot; for `bot_removed`, the last snapshot taken before the removal. */
    snapshot_id: string | null;
    owner_platform_user_id: string;
    guild_name: string;
    /** The actor's roles were removed (auto-action on). */
    auto_action_taken: boolean;
    occurred_at: string;
  };
  /** AntiNuke locked the guild down: invites and DMs paused, SEND_MESSAGES taken from @everyone. */
  LockdownStarted: {
    lockdown_id: string;
    guild_id: string;
    guild_name: string;
    owner_platform_user_id: string;
    /** The manager who started it; null when an incident did. */
    started_by_user: string | null;
    started_by_platform_user_id: string | null;
    /** The incident that started it; null when a manager did. */
    incident_id: string | null;
    /** ISO 8601: when it lifts itself. */
    lockdown_until: string;
    /** @everyone had SEND_MESSAGES, and lost it for the lockdown. */
    send_messages_taken: boolean;
    /** @everyone's permissions before (decimal string). */
    everyone_permissions_before: string;
    occurred_at: string;
  };
  /** The lockdown ended: by a manager, or when its time was up. */
  LockdownLifted: {
    lockdown_id: string;
    guild_id: string;
    guild_name: string;
    owner_platform_user_id: string;
    lifted_by_user: string | null;
    lifted_by_platform_user_id: string | null;
    reason: 'expired' | 'user';
    /** SEND_MESSAGES came back to @everyone. */
    send_messages_restored: boolean;
    occurred_at: string;
  };

  // recovery: who loosened AntiNuke or deleted a snapshot (the owner hears of each)
  /** A change of a guild's AntiNuke setting, what became of it, and who did what. */
  AntiNukeSettingsChanged: {
    guild_id: string;
    guild_name: string;
    owner_platform_user_id: string;
    /**
     * `applied`: in force now (the owner's, or one that loosens nothing); `pending`: it loosens
     * AntiNuke and applies at `applies_at` unless the owner refuses it; `approved`: the owner
     * applied a pending one early; `refused`: the owner refused a pending one; `applied_after_delay`:
     * a pending one came due; `self_exemption_refused`: someone tried to exempt themself.
     */
    outcome: AntiNukeSettingsOutcome;
    /** The pending change this is about; null for a change applied at once or refused outright. */
    change_id: string | null;
    /** Who did this (asked, approved or refused). */
    actor_platform_user_id: string;
    actor_user_id: string | null;
    /** Who asked for the change (differs from the actor when the owner approves or refuses). */
    requested_by_platform_user_id: string;
    before: AntiNukeSettingsFacts;
    after: AntiNukeSettingsFacts;
    /** The fields `after` loosens (off, more exemptions, higher threshold, narrower window, auto-action off). */
    loosened: string[];
    /** When a pending change applies; null otherwise. */
    applies_at: string | null;
    /** A pending change this one replaced (one per guild). */
    replaced_change_id: string | null;
  };
  /** A snapshot soft-deleted: hidden, and purged after `purge_after` unless the owner undoes it. */
  SnapshotDeleted: {
    snapshot_id: string;
    guild_id: string;
    guild_name: string;
    owner_platform_user_id: string;
    trigger: SnapshotTrigger;
    snapshot_created_at: string;
    deleted_by_user: string | null;
    deleted_by_platform_user_id: string;
    purge_after: string;
  };
  /** The owner undid a snapshot's delete within the grace period. */
  SnapshotUndeleted: {
    snapshot_id: string;
    guild_id: string;
    guild_name: string;
    owner_platform_user_id: string;
    trigger: SnapshotTrigger;
    undeleted_by_user: string | null;
    undeleted_by_platform_user_id: string;
    /** Who had deleted it. */
    deleted_by_platform_user_id: string;
  };

  // billing
  BillingKeyIssued: {
    billing_key_id: string;
    payer_user_id: string;
    subscription_id: string;
    card_last4: string;
  };
  SubscriptionStarted: {
    subscription_id: string;
    license_id: string | null;
    guild_id: string;
    payer_user_id: string;
    /** Who gets the DM; null only for subscriptions created before it was recorded. */
    payer_platform_user_id: string | null;
    guild_name: string;
    plan_code: PlanCode;
    amount_krw: number;
    current_period_start: string;
    current_period_end: string;
    next_billing_at: string;
    /**
     * Until when the licence stays in force past `current_period_end` because the subscription
     * renews: through the renewal charge and every past_due retry. Null when it ends at period end;
     * absent in events from before it was recorded (no grace).
     */
    grace_until?: string | null;
  };
  PaymentSucceeded: {
    subscription_id: string;
    payment_attempt_id: string;
    order_id: string;
    amount_krw: number;
    cycle: number;
    retry_number: number;
    provider_approved_at: string;
    /** The plan paid for and the period it now covers: licensing extends `expires_at` on renewals. */
    plan_code: PlanCode;
    current_period_end: string;
    /**
     * Until when the licence stays in force past `current_period_end` because the subscription
     * renews: through the renewal charge and every past_due retry. Null when it ends at period end;
     * absent in events from before it was recorded (no grace).
     */
    grace_until?: string | null;
  };
  PlanUpgraded: {
    subscription_id: string;
    license_id: string | null;
    payer_user_id: string;
    /** Who gets the DM; null only for subscriptions created before it was recorded. */
    payer_platform_user_id: string | null;
    guild_name: string;
    old_plan_code: PlanCode;
    new_plan_code: PlanCode;
    effective_at: string;
    current_period_end: string;
    /**
     * Until when the licence stays in force past `current_period_end` because the subscription
     * renews: through the renewal charge and every past_due retry. Null when it ends at period end;
     * absent in events from before it was recorded (no grace).
     */
    grace_until?: string | null;
  };
  PlanDowngradeScheduled: {
    subscription_id: string;
    license_id: string | null;
    payer_user_id: string;
    old_plan_code: PlanCode;
    new_plan_code: PlanCode;
    effective_at: string;
  };
  /**
   * The payer withdrew a scheduled downgrade before period end: the current plan renews as it is
   * (docs/behaviour.md §6). Audit only: it moves no licence (the licence never moved for the schedule).
   */
  PlanDowngradeCanceled: {
    subscription_id: string;
    license_id: string | null;
    payer_user_id: string;
    /** Who dropped it (the payer: only they may change the subscription). */
    requested_by_user: string;
    /** The plan in force, which now renews. */
    plan_code: PlanCode;
    /** The downgrade that no longer happens at period end. */
    dropped_plan_code: PlanCode;
    /** When the downgrade would have applied (the period end). */
    effective_at: string;
  };
  PlanDowngraded: {
    subscription_id: string;
    license_id: string | null;
    old_plan_code: PlanCode;
    new_plan_code: PlanCode;
    effective_at: string;
    current_period_end: string;
    /**
     * Until when the licence stays in force past `current_period_end` because the subscription
     * renews: through the renewal charge and every past_due retry. Null when it ends at period end;
     * absent in events from before it was recorded (no grace).
     */
    grace_until?: string | null;
  };
  SubscriptionCanceled: {
    subscription_id: string;
    license_id: string | null;
    cancel_at_period_end: true;
    effective_at: string;
    requested_by_user: string;
    payer_platform_user_id: string | null;
    guild_name: string;
    plan_code: PlanCode;
    /** The pending downgrade this cancel dropped (a cancel takes priority), if there was one. */
    dropped_pending_downgrade_to?: PlanCode | null;
  };
  SubscriptionUncanceled: {
    subscription_id: string;
    license_id: string | null;
    requested_by_user: string;
    /** What licensing needs to give the licence its renewal grace back (absent in older events). */
    plan_code?: PlanCode;
    current_period_end?: string;
    grace_until?: string | null;
  };
  SubscriptionCardChanged: {
    subscription_id: string;
    license_id: string | null;
    billing_key_id: string;
    payer_user_id: string;
    /** Who gets the DM; null only for subscriptions created before it was recorded. */
    payer_platform_user_id: string | null;
    guild_name: string;
    plan_code: PlanCode;
    /** The card this subscription is charged on from now on. */
    card_company: string;
    card_last4: string;
    /** The card it was charged on before; null when that one had been deleted at the provider. */
    previous_card_last4: string | null;
  };
  SubscriptionCanceledPeriodEnd: {
    subscription_id: string;
    license_id: string | null;
    payer_user_id: string;
    /** Who gets the DM; null only for subscriptions created before it was recorded. */
    payer_platform_user_id: string | null;
    guild_name: string;
    /** `period_end` for a scheduled cancel, `payment_failed` after the last renewal retry failed. */
    reason: 'period_end' | 'payment_failed';
    plan_code: PlanCode;
  };

  // licensing
  LicenseUpgraded: {
    license_id: string;
    guild_id: string;
    /** The plan that was in force before (FREE when the old licence had expired). */
    old_plan_code: PlanCode;
    new_plan_code: PlanCode;
    /** The new plan's features, so recovery can start AntiNuke without calling back. */
    features: PlanFeature[];
    expires_at: string | null;
    /** The billing event that caused the change. */
    cause: LicenseChangeCause;
  };
  LicenseDowngraded: {
    license_id: string;
    guild_id: string;
    old_plan_code: PlanCode;
    new_plan_code: PlanCode;
    features: PlanFeature[];
    /** Features the guild lost; ANTINUKE_AUTO_ACTION here means recovery switches auto-action off. */
    removed_features: PlanFeature[];
    expires_at: string | null;
    cause: LicenseChangeCause;
  };
}

export type EventType = keyof EventPayloads;

/** The billing events that move a licence (licensing consumes exactly these). */
export const LICENSE_CHANGE_CAUSES = [
  'SubscriptionStarted',
  'PlanUpgraded',
  'PlanDowngraded',
  'SubscriptionCanceledPeriodEnd',
  'PaymentSucceeded',
  // Move only the licence's renewal grace (a scheduled cancel ends it at period end).
  'SubscriptionCanceled',
  'SubscriptionUncanceled',
] as const satisfies readonly EventType[];
export type LicenseChangeCause = (typeof LICENSE_CHANGE_CAUSES)[number];

export type DomainEvent<T extends EventType = EventType> = EventEnvelope<T, EventPayloads[T]>;

/** Which producer emits which event; the outbox writer refuses an event from the wrong service. */
export const EVENT_PRODUCERS = {
  RestoreStarted: 'recovery',
  RestoreCompleted: 'recovery',
  RestoreFailed: 'recovery',
  RestoreCanceled: 'recovery',
  SnapshotCreated: 'recovery',
  AntiNukeIncidentOpened: 'recovery',
  LockdownStarted: 'recovery',
  LockdownLifted: 'recovery',
  AntiNukeSettingsChanged: 'recovery',
  SnapshotDeleted: 'recovery',
  SnapshotUndeleted: 'recovery',
  BillingKeyIssued: 'billing',
  SubscriptionStarted: 'billing',
  PaymentSucceeded: 'billing',
  PlanUpgraded: 'billing',
  PlanDowngradeScheduled: 'billing',
  PlanDowngradeCanceled: 'billing',
  PlanDowngraded: 'billing',
  SubscriptionCanceled: 'billing',
  SubscriptionUncanceled: 'billing',
  SubscriptionCardChanged: 'billing',
  SubscriptionCanceledPeriodEnd: 'billing',
  LicenseUpgraded: 'licensing',
  LicenseDowngraded: 'licensing',
} as const satisfies Record<EventType, 'recovery' | 'billing' | 'licensing'>;

export const EVENT_TYPES = Object.keys(EVENT_PRODUCERS) as EventType[];

export function isEventType(value: string): value is EventType {
  return Object.prototype.hasOwnProperty.call(EVENT_PRODUCERS, value);
}
