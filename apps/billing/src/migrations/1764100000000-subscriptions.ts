import { StatementMigration } from '@lib/database';

/**
 * Billing keys, subscriptions and payment attempts (docs/behaviour.md §2.4-2.6). Plans are referenced by code:
 * the catalogue belongs to licensing, and billing never reads another schema.
 */
export class Subscriptions1764100000000 extends StatementMigration {
  name = 'Subscriptions1764100000000';

  protected readonly upStatements = [
    // One card on file per user (the provider's customer): it backs all of the user's subscriptions.
    `
      CREATE TABLE billing.billing_keys (
        id uuid PRIMARY KEY,
        user_id uuid NOT NULL UNIQUE,
        customer_key text NOT NULL UNIQUE CHECK (customer_key ~ '^user_[0-9a-f-]{36}$'),
        -- AES-256-GCM blob (version | nonce | tag | ciphertext), bound to customer_key.
        billing_key_encrypted bytea NOT NULL,
        -- HMAC of the key: finds the row a provider webhook names without decrypting.
        billing_key_digest bytea NOT NULL UNIQUE,
        card_company text NOT NULL,
        card_number_masked text NOT NULL,
        card_last4 char(4) NOT NULL,
        status text NOT NULL CHECK (status IN ('active', 'deleted')),
        deleted_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`,
    `
      CREATE TABLE billing.subscriptions (
        id uuid PRIMARY KEY,
        guild_id uuid NOT NULL,
        license_id uuid,
        billing_key_id uuid NOT NULL REFERENCES billing.billing_keys (id),
        plan_code text NOT NULL CHECK (plan_code IN ('PRO', 'ENTERPRISE')),
        payer_user_id uuid NOT NULL,
        -- The guild's name at purchase, for the order name on the card statement of every renewal.
        guild_name text NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'active', 'past_due', 'canceled')),
        billing_cycle text NOT NULL DEFAULT 'monthly' CHECK (billing_cycle = 'monthly'),
        cycle_count integer NOT NULL DEFAULT 0 CHECK (cycle_count >= 0),
        -- Start of cycle 1: every period is computed from it, so month ends do not drift.
        billing_anchor_at timestamptz,
        current_period_start timestamptz,
        current_period_end timestamptz,
        next_billing_at timestamptz,
        cancel_at_period_end boolean NOT NULL DEFAULT false,
        pending_downgrade_to text CHECK (pending_downgrade_to IN ('PRO')),
        canceled_at timestamptz,
        cancel_reason text CHECK (cancel_reason IN ('first_charge_rejected', 'period_end', 'payment_failed')),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK (status <> 'canceled' OR canceled_at IS NOT NULL)
      )`,
    // docs/behaviour.md §2.4 allows one active or past_due subscription per guild; a pending one is included so a
    // second confirm is refused before it can charge the card.
    `
      CREATE UNIQUE INDEX subscriptions_one_live_per_guild ON billing.subscriptions (guild_id)
       WHERE status IN ('pending', 'active', 'past_due')`,
    `
      CREATE INDEX subscriptions_due_idx ON billing.subscriptions (next_billing_at)
       WHERE status IN ('active', 'past_due')`,
    `
      CREATE INDEX subscriptions_period_end_idx ON billing.subscriptions (current_period_end)
       WHERE status = 'active' AND (cancel_at_period_end OR pending_downgrade_to IS NOT NULL)`,
    `CREATE INDEX subscriptions_payer_idx ON billing.subscriptions (payer_user_id)`,
    `
      CREATE TABLE billing.payment_attempts (
        id uuid PRIMARY KEY,
        subscription_id uuid NOT NULL REFERENCES billing.subscriptions (id),
        cycle integer NOT NULL CHECK (cycle >= 1),
        retry_number integer NOT NULL CHECK (retry_number >= 0),
        order_id text NOT NULL UNIQUE,
        -- Sent again as it was when a charge with no answer is re-sent.
        order_name text NOT NULL,
        plan_code text NOT NULL,
        amount_krw integer NOT NULL CHECK (amount_krw > 0),
        status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
        provider_payment_key text,
        provider_approved_at timestamptz,
        failure_code text,
        failure_message text,
        provider_canceled_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        -- One charge per cycle and retry: the order id, and so the provider's idempotency, follows.
        -- A pending row is also the claim of a charge in flight: jobs leave its subscription alone.
        UNIQUE (subscription_id, cycle, retry_number)
      )`,
    `
      CREATE INDEX payment_attempts_pending_idx ON billing.payment_attempts (created_at)
       WHERE status = 'pending'`,
  ];

  protected readonly downStatements = [
    `DROP TABLE billing.payment_attempts`,
    `DROP TABLE billing.subscriptions`,
    `DROP TABLE billing.billing_keys`,
  ];
}
