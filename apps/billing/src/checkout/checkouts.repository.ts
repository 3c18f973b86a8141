import { firstRow } from '@lib/database';
import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';

/** A `billing.checkouts` row: what `prepare` bound the checkout to, and whether it was used. */
export interface CheckoutRow {
  id: string;
  user_id: string;
  guild_id: string;
  plan_code: string;
  customer_key: string;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
  /** Whether `expires_at` has passed, by the database's clock (the one that wrote it). */
  expired: boolean;
}

/** The checkouts `prepare` starts and `confirm` takes, once (docs/behaviour.md §4.4-4.5). */
@Injectable()
export class CheckoutsRepository {
  /**
   * A new checkout for the user, guild, plan and customer key, confirmable for `ttlMs`. Its id is
   * random (not time-ordered): it travels in the provider's return address, so it should say
   * nothing and be guessed by nobody, although a guessed id is still refused as another user's.
   */
  async open(
    manager: EntityManager,
    checkout: { userId: string; guildId: string; planCode: string; customerKey: string; ttlMs: number },
  ): Promise<CheckoutRow> {
    const [row] = await manager.query<CheckoutRow[]>(
      `INSERT INTO billing.checkouts (id, user_id, guild_id, plan_code, customer_key, expires_at)
       VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6::float8 / 1000.0))
       RETURNING *, false AS expired`,
      [
        randomUUID(),
        checkout.userId,
        checkout.guildId,
        checkout.planCode,
        checkout.customerKey,
        checkout.ttlMs,
      ],
    );
    return row;
  }

  /** The checkout, locked until the transaction ends: two confirms of one checkout take turns. */
  lock(manager: EntityManager, id: string): Promise<CheckoutRow | null> {
    return firstRow<CheckoutRow>(
      manager,
      `SELECT *, expires_at <= now() AS expired FROM billing.checkouts WHERE id = $1 FOR UPDATE`,
      [id],
    );
  }

  /** Marks a locked, unused checkout used; false if another confirm took it first. */
  async markUsed(manager: EntityManager, id: string): Promise<boolean> {
    // An UPDATE answers [rows, affected count].
    const [, updated] = await manager.query<[unknown[], number]>(
      `UPDATE billing.checkouts SET used_at = now() WHERE id = $1 AND used_at IS NULL`,
      [id],
    );
    return updated === 1;
  }

  /**
   * Retention: a batch of checkouts that expired before `cutoff`, used or not. Past its expiry a
   * checkout can only be refused, and the charge it led to is kept in `payment_attempts`.
   */
  async deleteExpiredBefore(dataSource: DataSource, cutoff: Date, limit: number): Promise<number> {
    const [, deleted] = await dataSource.query<[unknown, number]>(
      `DELETE FROM billing.checkouts WHERE ctid = ANY (ARRAY(
         SELECT ctid FROM billing.checkouts
          WHERE expires_at < $1
          ORDER BY expires_at
          LIMIT $2
            FOR UPDATE SKIP LOCKED))`,
      [cutoff, limit],
    );
    return deleted;
  }
}
