import {
  type DomainEvent,
  EVENT_PRODUCERS,
  type EventPayloads,
  type EventType,
  TOPICS,
} from '@lib/contracts';
import { KafkaEventPublisher } from '@lib/messaging';
import { v7 as uuidv7 } from 'uuid';
import { testKafka } from './test-kafka';

const DAY_MS = 86_400_000;

/** Who an event is about: the platform ids a DM goes to, and the service's own user id. */
export interface SampleParties {
  guildId: string;
  guildName: string;
  /** The restorer, snapshot taker, payer: the user events name. */
  userId: string;
  platformUserId: string;
}

/** A valid payload of every event type, for `parties`. Typed by the contract, so it follows it. */
export function samplePayloads(parties: SampleParties): EventPayloads {
  const { guildId, guildName, userId, platformUserId } = parties;
  const subscriptionId = uuidv7();
  const now = new Date();
  const periodEnd = new Date(now.getTime() + 30 * DAY_MS).toISOString();
  const summary = {
    roles_created: 2,
    roles_updated: 1,
    roles_deleted: 0,
    channels_created: 3,
    channels_updated: 0,
    channels_deleted: 0,
    overrides_applied: 4,
    overrides_removed: 0,
    guild_settings_updated: 1,
    skipped: 0,
  };
  const restore = {
    restore_job_id: uuidv7(),
    snapshot_id: uuidv7(),
    requested_by_user: userId,
    requested_by_platform_user_id: platformUserId,
    guild_name: guildName,
  };
  const payer = { payer_user_id: userId, payer_platform_user_id: platformUserId, guild_name: guildName };
  return {
    RestoreStarted: {
      restore_job_id: restore.restore_job_id,
      snapshot_id: restore.snapshot_id,
      guild_id: guildId,
      scope: ['roles', 'channels'],
      requested_by_user: userId,
    },
    RestoreCompleted: {
      ...restore,
      result_summary: summary,
      duration_ms: 83_000,
      pre_restore_snapshot_id: uuidv7(),
    },
    RestoreFailed: {
      ...restore,
      status: 'failed',
      error_code: 'PermissionDenied',
      error_message: 'Missing Permissions',
      pre_restore_snapshot_id: null,
    },
    RestoreCanceled: {
      ...restore,
      reason: 'guild_deleted',
      pre_restore_snapshot_id: null,
      pre_restore_snapshot_requested: false,
    },
    SnapshotCreated: {
      snapshot_id: uuidv7(),
      guild_id: guildId,
      trigger: 'manual',
      created_by_user: userId,
      guild_name: guildName,
      created_by_platform_user_id: platformUserId,
      size: 4_096,
    },
    AntiNukeIncidentOpened: {
      incident_id: uuidv7(),
      guild_id: guildId,
      actor_platform_user_id: '300000000000000009',
      action: 'channel_delete',
      count: 3,
      snapshot_id: uuidv7(),
      owner_platform_user_id: platformUserId,
      guild_name: guildName,
      auto_action_taken: false,
      occurred_at: now.toISOString(),
    },
    LockdownStarted: {
      lockdown_id: uuidv7(),
      guild_id: guildId,
      guild_name: guildName,
      owner_platform_user_id: platformUserId,
      started_by_user: userId,
      started_by_platform_user_id: platformUserId,
      incident_id: null,
      lockdown_until: new Date(now.getTime() + 60 * 60_000).toISOString(),
      send_messages_taken: true,
      everyone_permissions_before: '1024',
      occurred_at: now.toISOString(),
    },
    LockdownLifted: {
      lockdown_id: uuidv7(),
      guild_id: guildId,
      guild_name: guildName,
      owner_platform_user_id: platformUserId,
      lifted_by_user: null,
      lifted_by_platform_user_id: null,
      reason: 'expired',
      send_messages_restored: true,
      occurred_at: now.toISOString(),
    },
    AntiNukeSettingsChanged: {
      guild_id: guildId,
      guild_name: guildName,
      owner_platform_user_id: platformUserId,
      outcome: 'pending',
      change_id: uuidv7(),
      actor_platform_user_id: '300000000000000009',
      actor_user_id: null,
      requested_by_platform_user_id: '300000000000000009',
      before: {
        enabled: true,
        exempt_user_ids: [],
        threshold: 3,
        window_seconds: 10,
        auto_action_enabled: false,
      },
      after: {
        enabled: false,
        exempt_user_ids: [],
        threshold: 3,
        window_seconds: 10,
        auto_action_enabled: false,
      },
      loosened: ['enabled'],
      applies_at: new Date(now.getTime() + DAY_MS).toISOString(),
      replaced_change_id: null,
    },
    SnapshotDeleted: {
      snapshot_id: uuidv7(),
      guild_id: guildId,
      guild_name: guildName,
      owner_platform_user_id: platformUserId,
      trigger: 'manual',
      snapshot_created_at: now.toISOString(),
      deleted_by_user: null,
      deleted_by_platform_user_id: '300000000000000009',
      purge_after: new Date(now.getTime() + 7 * DAY_MS).toISOString(),
    },
    SnapshotUndeleted: {
      snapshot_id: uuidv7(),
      guild_id: guildId,
      guild_name: guildName,
      owner_platform_user_id: platformUserId,
      trigger: 'manual',
      undeleted_by_user: userId,
      undeleted_by_platform_user_id: platformUserId,
      deleted_by_platform_user_id: '300000000000000009',
    },
    BillingKeyIssued: {
      billing_key_id: uuidv7(),
      payer_user_id: userId,
      subscription_id: subscriptionId,
      card_last4: '4242',
    },
    SubscriptionStarted: {
      subscription_id: subscriptionId,
      license_id: null,
      guild_id: guildId,
      ...payer,
      plan_code: 'PRO',
      amount_krw: 9_900,
      current_period_start: now.toISOString(),
      current_period_end: periodEnd,
      next_billing_at: periodEnd,
    },
    PaymentSucceeded: {
      subscription_id: subscriptionId,
      payment_attempt_id: uuidv7(),
      order_id: `sub_${subscriptionId}_001_r0`,
      amount_krw: 9_900,
      cycle: 1,
      retry_number: 0,
      provider_approved_at: now.toISOString(),
      plan_code: 'PRO',
      current_period_end: periodEnd,
    },
    PlanUpgraded: {
      subscription_id: subscriptionId,
      license_id: null,
      ...payer,
      old_plan_code: 'PRO',
      new_plan_code: 'ENTERPRISE',
      effective_at: now.toISOString(),
      current_period_end: periodEnd,
    },
    PlanDowngradeScheduled: {
      subscription_id: subscriptionId,
      license_id: null,
      payer_user_id: userId,
      old_plan_code: 'ENTERPRISE',
      new_plan_code: 'PRO',
      effective_at: periodEnd,
    },
    PlanDowngradeCanceled: {
      subscription_id: subscriptionId,
      license_id: null,
      payer_user_id: userId,
      requested_by_user: userId,
      plan_code: 'ENTERPRISE',
      dropped_plan_code: 'PRO',
      effective_at: periodEnd,
    },
    PlanDowngraded: {
      subscription_id: subscriptionId,
      license_id: null,
      old_plan_code: 'ENTERPRISE',
      new_plan_code: 'PRO',
      effective_at: periodEnd,
      current_period_end: periodEnd,
    },
    SubscriptionCardChanged: {
      subscription_id: subscriptionId,
      license_id: null,
      billing_key_id: uuidv7(),
      ...payer,
      plan_code: 'PRO',
      card_company: '신한',
      card_last4: '4242',
      previous_card_last4: '1111',
    },
    SubscriptionCanceled: {
      subscription_id: subscriptionId,
      license_id: null,
      cancel_at_period_end: true,
      effective_at: periodEnd,
      requested_by_user: userId,
      payer_platform_user_id: platformUserId,
      guild_name: guildName,
      plan_code: 'PRO',
    },
    SubscriptionUncanceled: { subscription_id: subscriptionId, license_id: null, requested_by_user: userId },
    SubscriptionCanceledPeriodEnd: {
      subscription_id: subscriptionId,
      license_id: null,
      ...payer,
      reason: 'period_end',
      plan_code: 'PRO',
    },
    LicenseUpgraded: {
      license_id: uuidv7(),
      guild_id: guildId,
      old_plan_code: 'FREE',
      new_plan_code: 'PRO',
      features: ['RECOVERY_RESTORE'],
      expires_at: periodEnd,
      cause: 'SubscriptionStarted',
    },
    LicenseDowngraded: {
      license_id: uuidv7(),
      guild_id: guildId,
      old_plan_code: 'PRO',
      new_plan_code: 'FREE',
      features: [],
      removed_features: ['RECOVERY_RESTORE'],
      expires_at: null,
      cause: 'SubscriptionCanceledPeriodEnd',
    },
  };
}

/** The envelope its producer would write (docs/decisions/events.md). */
export function envelope<T extends EventType>(
  type: T,
  guildId: string,
  payload: EventPayloads[T],
): DomainEvent<T> {
  const id = uuidv7();
  return {
    id,
    type,
    version: 1,
    occurred_at: new Date().toISOString(),
    producer: EVENT_PRODUCERS[type],
    aggregate_type: 'test',
    aggregate_id: id,
    guild_id: guildId,
    correlation_id: null,
    payload,
  };
}

/** Publishes envelopes to their producers' topics exactly as the outbox relay does (key = guild id). */
export class TestEventPublisher {
  private readonly publisher = new KafkaEventPublisher(testKafka(`test-publisher-${uuidv7()}`));

  async publish(events: DomainEvent[]): Promise<void> {
    await this.publisher.publish(
      events.map((event) => ({
        id: event.id,
        topic: TOPICS[event.producer],
        key: event.guild_id,
        eventType: event.type,
        envelope: JSON.stringify(event),
      })),
    );
  }

  close(): Promise<void> {
    return this.publisher.close();
  }
}
