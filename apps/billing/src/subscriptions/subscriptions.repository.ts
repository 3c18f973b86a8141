import { firstRow } from '@lib/database';
import { Injectable } from '@nestjs/common';
import { SubscriptionErrors } from './subscriptions.errors';
import { DataSource, type EntityManager } from 'typeorm';
import type { CancelReason, PaidPlanCode, SubscriptionRow } from './subscription';

/** Columns a transition may change; `updated_at` is always set to the transition's time. */
export type SubscriptionChange = Partial<
  Pick<
    SubscriptionRow,
    | 'license_id'
    | 'plan_code'
    | 'status'
    | 'cycle_count'
    | 'billing_anchor_at'
    | 'current_period_start'
    | 'current_period_end'
    | 'next_billing_at'
    | 'cancel_at_period_end'
    | 'pending_downgrade_to'
    | 'canceled_at'
    | 'cancel_reason'
  >
>;

export interface NewSubscription {
  id: string;
  guildId: string;
  licenseId: string | null;
  billingKeyId: string;
  planCode: PaidPlanCode;
  payerUserId: string;
  payerPlatformUserId: string;
  guildName: string;
}

const LIVE = `status IN ('pending', 'active', 'past_due')`;
const UNIQUE_VIOLATION = '23505';

/** Reads and writes of `billing.subscriptions`; transitions run in the caller's transaction. */
@Injectable()
export class SubscriptionsRepository {
  constructor(private readonly dataSource: DataSource) {}

  get(id: string, manager: EntityManager = this.dataSource.manager): Promise<SubscriptionRow | null> {
    return firstRow<SubscriptionRow>(manager, `SELECT * FROM billing.subscriptions WHERE id = $1`, [id]);
  }

  /** The row, locked until the transaction ends: transitions of one subscription never interleave. */
  lock(manager: EntityManager, id: string): Promise<SubscriptionRow | null> {
    return firstRow<SubscriptionRow>(
      manager,
      `SELECT * FROM billing.subscriptions WHERE id = $1 FOR UPDATE`,
      [id],
    );
  }

  /** The guild's pending, active or past_due subscription (at most one, by the partial unique index). */
  findLive(guildId: string): Promise<SubscriptionRow | null> {
    return firstRow<SubscriptionRow>(
      this.dataSource,
      `SELECT * FROM billing.subscriptions WHERE guild_id = $1 AND ${LIVE}`,
      [guildId],
    );
  }

  /** The payer's running subscriptions (charged on their card on file at the next renewal or retry). */
  async listRunningOfPayer(manager: EntityManager, payerUserId: string): Promise<SubscriptionRow[]> {
    return manager.query<SubscriptionRow[]>(
      `SELECT * FROM billing.subscriptions WHERE payer_user_id = $1 AND status IN ('active', 'past_due')
        ORDER BY created_at`,
      [payerUserId],
    );
  }

  /** Running subscriptions that do not name their guild's licence yet (created before they did). */
  async listWithoutLicense(limit: number): Promise<{ id: string; guild_id: string }[]> {
    return this.dataSource.query(
      `SELECT id, guild_id FROM billing.subscriptions
        WHERE license_id IS NULL AND status IN ('pending', 'active', 'past_due') ORDER BY created_at LIMIT $1`,
      [limit],
    );
  }

  /**
   * Records the licence id; only where none is recorded, so it is never overwritten. Not a
   * transition: `updated_at`, which dates the subscription's events, stays as it is.
   */
  async attachLicense(id: string, licenseId: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE billing.subscriptions SET license_id = $2 WHERE id = $1 AND license_id IS NULL`,
      [id, licenseId],
    );
  }

  /** The guild's subscriptions, newest first (earlier canceled ones stay as history). */
  async listForGuild(guildId: string, limit: number): Promise<SubscriptionRow[]> {
    return this.dataSource.query<SubscriptionRow[]>(
      `SELECT * FROM billing.subscriptions WHERE guild_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`,
      [guildId, limit],
    );
  }

  /** Throws SubscriptionErrors.exists when the guild already has a live one, even under concurrency. */
  async insertPending(manager: EntityManager, subscription: NewSubscription): Promise<SubscriptionRow> {
    try {
      const [row] = await manager.query<SubscriptionRow[]>(
        `INSERT INTO billing.subscriptions
           (id, guild_id, license_id, billing_key_id, plan_code, payer_user_id, payer_platform_user_id,
            guild_name, status)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'pending')
         RETURNING *`,
        [
          subscription.id,
          subscription.guildId,
          subscription.licenseId,
          subscription.billingKeyId,
          subscription.planCode,
          subscription.payerUserId,
          subscription.payerPlatformUserId,
          subscription.guildName,
        ],
      );
      return row;
    } catch (error) {
      if ((error as { code?: string }).code === UNIQUE_VIOLATION) throw SubscriptionErrors.exists();
      throw error;
    }
  }

  async update(
    manager: EntityManager,
    id: string,
    change: SubscriptionChange,
    now: Date,
  ): Promise<SubscriptionRow> {
    const columns = Object.keys(change) as (keyof SubscriptionChange)[];
    const assignments = columns.map((column, index) => `${column} = $${index + 3}`);
    const [rows] = await manager.query<[SubscriptionRow[], number]>(
      `UPDATE billing.subscriptions SET ${[...assignments, 'updated_at = $2'].join(', ')}
        WHERE id = $1 RETURNING *`,
      [id, now, ...columns.map((column) => change[column])],
    );
    if (rows.length !== 1) throw new Error(`subscription ${id} vanished during a transition`);
    return rows[0];
  }

  /**
   * The subscription ends (docs/behaviour.md §2.4): `canceled` for `reason`, at `now`, and nothing
   * further is due. A first charge refused, a scheduled cancel at its period end and the last failed
   * renewal retry all end it this way.
   */
  end(manager: EntityManager, id: string, reason: CancelReason, now: Date): Promise<SubscriptionRow> {
    return this.update(
      manager,
      id,
      { status: 'canceled', canceled_at: now, cancel_reason: reason, next_billing_at: null },
      now,
    );
  }

  // The subscription jobs' claims: one due row at a time, locked and skipped by other replicas.

  /** A subscription whose pending downgrade is due (a scheduled cancel takes priority). */
  async claimDueDowngrade(manager: EntityManager, now: Date): Promise<SubscriptionRow | null> {
    const [subscription] = await manager.query<SubscriptionRow[]>(
      `SELECT * FROM billing.subscriptions
        WHERE status IN ('active', 'past_due') AND pending_downgrade_to IS NOT NULL
          AND NOT cancel_at_period_end AND current_period_end <= $1
        ORDER BY current_period_end LIMIT 1 FOR UPDATE SKIP LOCKED`,
      [now],
    );
    return subscription ?? null;
  }

  /** An active subscription whose scheduled cancel is due. */
  async claimDueCancel(manager: EntityManager, now: Date): Promise<SubscriptionRow | null> {
    const [subscription] = await manager.query<SubscriptionRow[]>(
      `SELECT * FROM billing.subscriptions
        WHERE status = 'active' AND cancel_at_period_end AND current_period_end <= $1
        ORDER BY current_period_end LIMIT 1 FOR UPDATE SKIP LOCKED`,
      [now],
    );
    return subscription ?? null;
  }

  /** Whether any renewal is due: checked before asking licensing for prices. */
  async anyRenewalDue(now: Date): Promise<boolean> {
    const [due] = await this.dataSource.query<unknown[]>(
      `SELECT 1 FROM billing.subscriptions
        WHERE status IN ('active', 'past_due') AND NOT cancel_at_period_end AND next_billing_at <= $1 LIMIT 1`,
      [now],
    );
    return due !== undefined;
  }

  /**
   * A subscription due for renewal with no charge in flight (a pending attempt is the renewal's
   * claim); canceled ones and scheduled cancels are skipped (appendix rule 5).
   */
  async claimDueRenewal(manager: EntityManager, now: Date): Promise<SubscriptionRow | null> {
    const [subscription] = await manager.query<SubscriptionRow[]>(
      `SELECT * FROM billing.subscriptions s
        WHERE s.status IN ('active', 'past_due') AND NOT s.cancel_at_period_end AND s.next_billing_at <= $1
          AND NOT EXISTS (SELECT 1 FROM billing.payment_attempts a
                           WHERE a.subscription_id = s.id AND a.status = 'pending')
        ORDER BY s.next_billing_at LIMIT 1 FOR UPDATE SKIP LOCKED`,
      [now],
    );
    return subscription ?? null;
  }
}
