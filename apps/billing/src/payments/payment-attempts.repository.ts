import { firstRow } from '@lib/database';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import type { PaidPlanCode } from '../subscriptions/subscription';
import { formatOrderId, type PaymentPurpose } from './order-id';

export type PaymentAttemptStatus = 'pending' | 'succeeded' | 'failed';

/** A `billing.payment_attempts` row (docs/behaviour.md §2.6). */
export interface PaymentAttemptRow {
  id: string;
  subscription_id: string;
  /** `period` pays `cycle`; `upgrade` pays the higher `plan_code` for the rest of `cycle`. */
  purpose: PaymentPurpose;
  cycle: number;
  retry_number: number;
  order_id: string;
  order_name: string;
  plan_code: PaidPlanCode;
  amount_krw: number;
  status: PaymentAttemptStatus;
  provider_payment_key: string | null;
  provider_approved_at: Date | null;
  failure_code: string | null;
  failure_message: string | null;
  provider_canceled_at: Date | null;
  /** The provider's receipt page of an approved charge. */
  receipt_url: string | null;
  /** When the next look-up of a pending charge is due; null: PAYMENT_RECONCILE_AFTER_MS after creation. */
  next_check_at: Date | null;
  /** Look-ups made of this pending charge so far. */
  check_count: number;
  /** When the operator was told it stays unsettled. */
  unsettled_alerted_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface NewPaymentAttempt {
  subscriptionId: string;
  cycle: number;
  retryNumber: number;
  planCode: PaidPlanCode;
  amountKrw: number;
  orderName: string;
  /** Default `period`. */
  purpose?: PaymentPurpose;
}

/** Charges of a subscription, one row per cycle and retry; the order id follows from both. */
@Injectable()
export class PaymentAttemptsRepository {
  async insertPending(manager: EntityManager, attempt: NewPaymentAttempt): Promise<PaymentAttemptRow> {
    const orderId = formatOrderId({
      subscriptionId: attempt.subscriptionId,
      cycle: attempt.cycle,
      retryNumber: attempt.retryNumber,
      purpose: attempt.purpose,
    });
    const [row] = await manager.query<PaymentAttemptRow[]>(
      `INSERT INTO billing.payment_attempts
         (id, subscription_id, cycle, retry_number, order_id, order_name, plan_code, amount_krw, status, purpose)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'pending', $9)
       RETURNING *`,
      [
        uuidv7(),
        attempt.subscriptionId,
        attempt.cycle,
        attempt.retryNumber,
        orderId,
        attempt.orderName,
        attempt.planCode,
        attempt.amountKrw,
        attempt.purpose ?? 'period',
      ],
    );
    return row;
  }

  /** The subscription's charges, newest first: each cycle, each retry, each upgrade within a cycle. */
  async listForSubscription(
    manager: EntityManager,
    subscriptionId: string,
    limit: number,
  ): Promise<PaymentAttemptRow[]> {
    return manager.query<PaymentAttemptRow[]>(
      `SELECT * FROM billing.payment_attempts WHERE subscription_id = $1
        ORDER BY cycle DESC, created_at DESC, retry_number DESC LIMIT $2`,
      [subscriptionId, limit],
    );
  }

  lockByOrderId(manager: EntityManager, orderId: string): Promise<PaymentAttemptRow | null> {
    return firstRow<PaymentAttemptRow>(
      manager,
      `SELECT * FROM billing.payment_attempts WHERE order_id = $1 FOR UPDATE`,
      [orderId],
    );
  }

  /** The latest attempt of a cycle (highest retry), if any; `purpose` upgrade: the cycle's latest upgrade. */
  latestOfCycle(
    manager: EntityManager,
    subscriptionId: string,
    cycle: number,
    purpose: PaymentPurpose = 'period',
  ): Promise<PaymentAttemptRow | null> {
    return firstRow<PaymentAttemptRow>(
      manager,
      `SELECT * FROM billing.payment_attempts WHERE subscription_id = $1 AND cycle = $2 AND purpose = $3
        ORDER BY retry_number DESC LIMIT 1`,
      [subscriptionId, cycle, purpose],
    );
  }

  /** The subscription's charge in flight, if any (at most one: payment_attempts_one_pending_idx). */
  pendingOf(manager: EntityManager, subscriptionId: string): Promise<PaymentAttemptRow | null> {
    return firstRow<PaymentAttemptRow>(
      manager,
      `SELECT * FROM billing.payment_attempts WHERE subscription_id = $1 AND status = 'pending'`,
      [subscriptionId],
    );
  }

  markSucceeded(
    manager: EntityManager,
    id: string,
    paymentKey: string,
    approvedAt: Date,
    receiptUrl: string | null = null,
  ): Promise<PaymentAttemptRow> {
    return this.update(
      manager,
      id,
      `status = 'succeeded', provider_payment_key = $2, provider_approved_at = $3,
       receipt_url = COALESCE($4, receipt_url), next_check_at = NULL`,
      [paymentKey, approvedAt, receiptUrl],
    );
  }

  markFailed(
    manager: EntityManager,
    id: string,
    failure: { code: string; message: string },
  ): Promise<PaymentAttemptRow> {
    return this.update(
      manager,
      id,
      `status = 'failed', failure_code = $2, failure_message = $3, next_check_at = NULL`,
      [failure.code.slice(0, 100), failure.message.slice(0, 500)],
    );
  }

  markCanceledAtProvider(manager: EntityManager, id: string, at: Date): Promise<PaymentAttemptRow> {
    return this.update(manager, id, `provider_canceled_at = $2`, [at]);
  }

  /**
   * Claims one pending charge whose look-up is due (docs/behaviour.md, "Reading a charge's
   * outcome"): the first `firstAfterMs` after the attempt was created, then after twice as long
   * each time, at most `maxIntervalMs` apart. The claim itself schedules the next look-up, so other
   * replicas leave it alone until then, and a check that crashes is simply made again later.
   */
  async claimDueCheck(
    manager: EntityManager,
    now: Date,
    firstAfterMs: number,
    maxIntervalMs: number,
  ): Promise<PaymentAttemptRow | null> {
    const [rows] = await manager.query<[PaymentAttemptRow[], number]>(
      `UPDATE billing.payment_attempts a
          SET check_count = a.check_count + 1,
              next_check_at = $1::timestamptz + make_interval(secs => LEAST(
                $2::float8 * power(2, LEAST(a.check_count, 40)), $3::float8) / 1000.0),
              updated_at = now()
        WHERE a.id = (SELECT id FROM billing.payment_attempts
                       WHERE status = 'pending'
                         AND COALESCE(next_check_at, created_at + make_interval(secs => $2::float8 / 1000.0)) <= $1
                       ORDER BY COALESCE(next_check_at, created_at) LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING a.*`,
      [now, firstAfterMs, maxIntervalMs],
    );
    return rows[0] ?? null;
  }

  /**
   * Pending charges created before `before` that the operator was not yet told about, each marked
   * as told in the same statement (so one replica tells it once).
   */
  async claimUnsettledToAlert(
    manager: EntityManager,
    before: Date,
    limit: number,
  ): Promise<PaymentAttemptRow[]> {
    const [rows] = await manager.query<[PaymentAttemptRow[], number]>(
      `UPDATE billing.payment_attempts SET unsettled_alerted_at = now()
        WHERE id IN (SELECT id FROM billing.payment_attempts
                      WHERE status = 'pending' AND unsettled_alerted_at IS NULL AND created_at < $1
                      ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED)
        RETURNING *`,
      [before, limit],
    );
    return rows;
  }

  /** Sets `assignments` (parameters from $2, `values`) on the attempt `id`, which must exist. */
  private async update(
    manager: EntityManager,
    id: string,
    assignments: string,
    values: unknown[],
  ): Promise<PaymentAttemptRow> {
    const [rows] = await manager.query<[PaymentAttemptRow[], number]>(
      `UPDATE billing.payment_attempts SET ${assignments}, updated_at = now() WHERE id = $1 RETURNING *`,
      [id, ...values],
    );
    if (rows.length !== 1) throw new Error('payment attempt vanished during an update');
    return rows[0];
  }
}
