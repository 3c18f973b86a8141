import type { NewEvent } from '@lib/outbox';
import { v7 as uuidv7 } from 'uuid';

/** A valid SnapshotCreated event for a random guild (recovery is its producer). */
export function snapshotCreated(guildId: string = uuidv7()): NewEvent<'SnapshotCreated'> {
  const snapshotId = uuidv7();
  return {
    type: 'SnapshotCreated',
    aggregate_type: 'snapshot',
    aggregate_id: snapshotId,
    guild_id: guildId,
    payload: {
      snapshot_id: snapshotId,
      guild_id: guildId,
      trigger: 'manual',
      created_by_user: uuidv7(),
      guild_name: 'Test guild',
      created_by_platform_user_id: '80351110224678912',
      size: 1234,
    },
  };
}

/** A valid PaymentSucceeded event (billing is its producer). */
export function paymentSucceeded(guildId: string = uuidv7()): NewEvent<'PaymentSucceeded'> {
  const subscriptionId = uuidv7();
  return {
    type: 'PaymentSucceeded',
    aggregate_type: 'subscription',
    aggregate_id: subscriptionId,
    guild_id: guildId,
    payload: {
      subscription_id: subscriptionId,
      payment_attempt_id: uuidv7(),
      order_id: `sub_${subscriptionId}_001_r0`,
      amount_krw: 9900,
      cycle: 1,
      retry_number: 0,
      provider_approved_at: new Date().toISOString(),
      plan_code: 'PRO',
      current_period_end: new Date(Date.now() + 30 * 86_400_000).toISOString(),
    },
  };
}
