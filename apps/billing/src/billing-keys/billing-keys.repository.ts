import { firstRow } from '@lib/database';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import type { IssuedBillingKey } from '../provider/payment-provider.client';
import { BillingKeyCipher } from './billing-key-cipher';

/** A `billing.billing_keys` row without the secret columns. */
export interface BillingKeyRow {
  id: string;
  user_id: string;
  customer_key: string;
  card_company: string;
  card_number_masked: string;
  card_last4: string;
  status: 'active' | 'deleted';
  deleted_at: Date | null;
  updated_at: Date;
}

const PUBLIC_COLUMNS = `id, user_id, customer_key, card_company, card_number_masked, card_last4, status, deleted_at, updated_at`;

/**
 * The user's card on file (docs/behaviour.md §2.5). The provider's billing key is stored only encrypted, bound to
 * the customer key, and found by its HMAC digest; it leaves this class in clear only to be charged.
 */
@Injectable()
export class BillingKeysRepository {
  constructor(private readonly cipher: BillingKeyCipher) {}

  /**
   * Stores a newly issued key as the user's card on file. A user who already has one keeps the same
   * row (and so `billing_key_id`): every subscription they pay is charged on the newest card.
   */
  async saveForUser(
    manager: EntityManager,
    userId: string,
    customerKey: string,
    issued: IssuedBillingKey,
  ): Promise<BillingKeyRow> {
    const [row] = await manager.query<BillingKeyRow[]>(
      `INSERT INTO billing.billing_keys
         (id, user_id, customer_key, billing_key_encrypted, billing_key_digest,
          card_company, card_number_masked, card_last4, status)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'active')
       ON CONFLICT (user_id) DO UPDATE SET
         billing_key_encrypted = EXCLUDED.billing_key_encrypted,
         billing_key_digest = EXCLUDED.billing_key_digest,
         card_company = EXCLUDED.card_company,
         card_number_masked = EXCLUDED.card_number_masked,
         card_last4 = EXCLUDED.card_last4,
         status = 'active', deleted_at = NULL, updated_at = now()
       RETURNING ${PUBLIC_COLUMNS}`,
      [
        uuidv7(),
        userId,
        customerKey,
        this.cipher.encrypt(issued.billingKey, customerKey),
        this.cipher.digest(issued.billingKey),
        issued.cardCompany.slice(0, 50),
        issued.cardNumber.slice(0, 30),
        lastFour(issued.cardNumber),
      ],
    );
    return row;
  }

  /**
   * The user's card on file, whatever its status, locked until the transaction ends: two confirms
   * of one user replace (or reuse) it one after the other.
   */
  lockForUser(manager: EntityManager, userId: string): Promise<BillingKeyRow | null> {
    return firstRow<BillingKeyRow>(
      manager,
      `SELECT ${PUBLIC_COLUMNS} FROM billing.billing_keys WHERE user_id = $1 FOR UPDATE`,
      [userId],
    );
  }

  /** The user's card that can still be charged, if any (docs/behaviour.md §4.5: reused for their next guild). */
  findActiveForUser(manager: EntityManager, userId: string): Promise<BillingKeyRow | null> {
    return firstRow<BillingKeyRow>(
      manager,
      `SELECT ${PUBLIC_COLUMNS} FROM billing.billing_keys WHERE user_id = $1 AND status = 'active'`,
      [userId],
    );
  }

  /** The cards behind these ids, by id (subscription reads name the card each one is charged on). */
  async getMany(manager: EntityManager, ids: string[]): Promise<Map<string, BillingKeyRow>> {
    const rows = await manager.query<BillingKeyRow[]>(
      `SELECT ${PUBLIC_COLUMNS} FROM billing.billing_keys WHERE id = ANY($1::uuid[])`,
      [[...new Set(ids)]],
    );
    return new Map(rows.map((row) => [row.id, row]));
  }

  get(manager: EntityManager, id: string): Promise<BillingKeyRow | null> {
    return firstRow<BillingKeyRow>(
      manager,
      `SELECT ${PUBLIC_COLUMNS} FROM billing.billing_keys WHERE id = $1`,
      [id],
    );
  }

  /** The key in clear, for a charge; null when the customer or the provider deleted it. */
  async reveal(
    manager: EntityManager,
    id: string,
  ): Promise<{ billingKey: string; customerKey: string } | null> {
    const [row] = await manager.query<
      { customer_key: string; billing_key_encrypted: Buffer; status: string }[]
    >(`SELECT customer_key, billing_key_encrypted, status FROM billing.billing_keys WHERE id = $1`, [id]);
    if (!row || row.status !== 'active') return null;
    return {
      billingKey: this.cipher.decrypt(row.billing_key_encrypted, row.customer_key),
      customerKey: row.customer_key,
    };
  }

  /** `BILLING_KEY.DELETED`: marks the row holding this key; false when no row holds it (any more). */
  async markDeleted(manager: EntityManager, billingKey: string, at: Date): Promise<boolean> {
    const [rows] = await manager.query<[unknown[], number]>(
      `UPDATE billing.billing_keys SET status = 'deleted', deleted_at = $2, updated_at = now()
        WHERE billing_key_digest = $1 AND status = 'active' RETURNING id`,
      [this.cipher.digest(billingKey), at],
    );
    return rows.length > 0;
  }
}

/** The last four characters the provider shows of the masked number (the last may be masked too). */
function lastFour(maskedNumber: string): string {
  return maskedNumber
    .replace(/[^0-9*]/g, '')
    .slice(-4)
    .padStart(4, '*');
}
