import type { InternalIdentity } from '@lib/contracts';
import { FakePaymentProvider, SDK_SCRIPT_PATH } from '@lib/sandbox';
import type { DataSource } from 'typeorm';
import { type AppProcess, startApp } from './app-process';
import { RecoveryStack, type UserIdentity } from './recovery-stack';

/** The provider never answers within this in tests (spec: 30 s), to keep the timeout case short. */
export const TEST_PROVIDER_TIMEOUT_MS = 2_000;

/**
 * A month goes by for these subscriptions: each one's current period (and its anchor) moves back
 * so that it ended a second ago, and its renewal is due.
 */
export async function endCurrentPeriods(dataSource: DataSource, subscriptionIds: string[]): Promise<void> {
  await dataSource.query(
    `UPDATE billing.subscriptions s
        SET billing_anchor_at = s.billing_anchor_at - shift.by,
            current_period_start = s.current_period_start - shift.by,
            current_period_end = s.current_period_end - shift.by,
            next_billing_at = s.current_period_end - shift.by
       FROM (SELECT id, current_period_end - now() + interval '1 second' AS by
               FROM billing.subscriptions WHERE id = ANY($1::uuid[])) shift
      WHERE s.id = shift.id`,
    [subscriptionIds],
  );
}

/**
 * Billing with everything it talks to: recovery (MANAGE_GUILD, guild names) and licensing (prices)
 * from RecoveryStack, and the fake payment provider on loopback.
 */
export class BillingStack extends RecoveryStack {
  readonly provider = new FakePaymentProvider();
  billing!: AppProcess;
  /** Every one-time card auth key handed to confirm, so a test can look for them in logs. */
  readonly authKeys: string[] = [];
  private billingEnv: Record<string, string> = {};

  override async start(): Promise<void> {
    await super.start();
    const { url } = await this.provider.start();
    this.billingEnv = {
      PROVIDER_API_URL: url,
      PROVIDER_SECRET_KEY: this.provider.secretKey,
      PROVIDER_CLIENT_KEY: this.provider.clientKey,
      PROVIDER_SDK_URL: `${url}${SDK_SCRIPT_PATH}`,
      PROVIDER_TIMEOUT_MS: String(TEST_PROVIDER_TIMEOUT_MS),
      RECOVERY_URL: this.recovery.url,
      LICENSING_URL: this.licensing.url,
      BILLING_JOBS_INTERVAL_MS: '250',
      // A pending charge stays pending while a test looks at it: the tests of the look-up start a
      // billing with their own PAYMENT_RECONCILE_AFTER_MS (1-3 s), the others never meet it.
      PAYMENT_RECONCILE_AFTER_MS: String(10 * 60_000),
      LOG_LEVEL: 'debug',
    };
    this.billing = await this.startBilling();
  }

  /** Another billing process on the same database (a replica), with `env` on top. */
  startBilling(env: Record<string, string> = {}): Promise<AppProcess> {
    return startApp('billing', { ...this.billingEnv, ...env });
  }

  override async stop(): Promise<void> {
    await this.billing?.stop();
    await this.provider.stop();
    await super.stop();
  }

  /** Calls billing as the gateway would forward it for `identity`. */
  callBilling(method: string, path: string, identity: InternalIdentity | null, body?: unknown) {
    return this.call(this.billing, method, path, identity, body);
  }

  /** A confirm whose first charge the provider makes but does not answer within billing's time-out. */
  async subscribeUnanswered(user: UserIdentity, guildId: string) {
    this.provider.setChargeDelay(TEST_PROVIDER_TIMEOUT_MS + 1_500);
    try {
      return await this.subscribe(user, guildId);
    } finally {
      this.provider.setChargeDelay(0);
    }
  }

  /** prepare + card widget + confirm, as the dashboard does it. */
  async subscribe(user: UserIdentity, guildId: string, plan: 'PRO' | 'ENTERPRISE' = 'PRO') {
    const prepared = await this.callBilling(
      'GET',
      `/api/v1/billing/prepare?guild_id=${guildId}&plan=${plan}`,
      user,
    );
    if (prepared.status !== 200) throw new Error(`prepare failed: ${JSON.stringify(prepared)}`);
    const customerKey = prepared.body.customer_key as string;
    const authKey = this.provider.authorizeCard({ customerKey });
    this.authKeys.push(authKey);
    return this.callBilling('POST', '/api/v1/billing/confirm', user, {
      checkout_id: prepared.body.checkout_id,
      auth_key: authKey,
      customer_key: customerKey,
      guild_id: guildId,
      plan_code: plan,
    });
  }
}
