import { Injectable, Logger } from '@nestjs/common';
import type { GuildAccess, InternalIdentity, PlanCode, PlanDefinition } from '@lib/contracts';
import { EntitlementsClient } from '@lib/entitlements';
import { requireUser } from '@lib/guild-access';
import { ValidationError } from '@lib/problem-details';
import { DataSource, type EntityManager } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { BillingSettings } from '../billing-settings';
import { type BillingKeyRow, BillingKeysRepository } from '../billing-keys/billing-keys.repository';
import { PaymentAttemptsRepository } from '../payments/payment-attempts.repository';
import { PaymentsService } from '../payments/payments.service';
import {
  type IssuedBillingKey,
  PaymentProviderClient,
  ProviderRejectedError,
} from '../provider/payment-provider.client';
import {
  type PaidPlanCode,
  type SubscriptionView,
  toCardView,
  toSubscriptionView,
} from '../subscriptions/subscription';
import { SubscriptionEvents } from '../subscriptions/subscription-events';
import { SubscriptionErrors } from '../subscriptions/subscriptions.errors';
import { SubscriptionsRepository } from '../subscriptions/subscriptions.repository';
import { CheckoutErrors } from './checkout.errors';
import type { ConfirmDto, PrepareQuery, PrepareView } from './checkout.dto';
import { type CheckoutRow, CheckoutsRepository } from './checkouts.repository';

/** The confirm answer: the subscription, and while the first charge is unanswered, a note saying so. */
export type ConfirmResult =
  | { status: 200; body: SubscriptionView }
  | { status: 202; body: SubscriptionView & { payment: { status: 'processing'; detail: string } } };

/** The provider's customer for a user: stable, so one card on file serves all their guilds. */
export function customerKeyOf(userId: string): string {
  return `user_${userId}`;
}

/**
 * docs/behaviour.md §4.4-4.5: prepare the card widget, then confirm: issue and store the billing key (or reuse
 * the payer's card on file), create the pending subscription and charge the first cycle, in that
 * order, each step durable before the next talks to the provider, so a crash anywhere leaves
 * nothing half-written and nothing charged twice. Both act in a guild whose MANAGE_GUILD the route
 * has checked (`guild`) before validating.
 *
 * A payer has one card on file (one billing key row, docs/behaviour.md §2.5), like a default card: a new card
 * replaces it for every subscription they pay, and each of their other running subscriptions gets
 * a `SubscriptionCardChanged` (a DM) saying which card it is charged on from now on.
 */
@Injectable()
export class CheckoutService {
  private readonly logger = new Logger(CheckoutService.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly settings: BillingSettings,
    private readonly entitlements: EntitlementsClient,
    private readonly provider: PaymentProviderClient,
    private readonly billingKeys: BillingKeysRepository,
    private readonly subscriptions: SubscriptionsRepository,
    private readonly attempts: PaymentAttemptsRepository,
    private readonly payments: PaymentsService,
    private readonly events: SubscriptionEvents,
    private readonly checkouts: CheckoutsRepository,
  ) {}

  async prepare(identity: InternalIdentity, guild: GuildAccess, query: PrepareQuery): Promise<PrepareView> {
    const user = requireUser(identity);
    const plan = await this.paidPlan(query.plan, 'plan');
    if (await this.subscriptions.findLive(guild.guild_id)) throw SubscriptionErrors.exists();
    const manager = this.dataSource.manager;
    const card = await this.billingKeys.findActiveForUser(manager, user.user_id);
    const running = await this.subscriptions.listRunningOfPayer(manager, user.user_id);
    const customerKey = customerKeyOf(user.user_id);
    const checkout = await this.checkouts.open(manager, {
      userId: user.user_id,
      guildId: guild.guild_id,
      planCode: plan.code,
      customerKey,
      ttlMs: this.settings.checkoutTtlMs,
    });
    return {
      checkout_id: checkout.id,
      checkout_expires_at: checkout.expires_at.toISOString(),
      customer_key: customerKey,
      order_name: this.settings.orderName(plan.name, guild.name),
      amount: plan.price_krw,
      provider_client_key: this.settings.providerClientKey,
      provider_sdk_url: this.settings.providerSdkUrl,
      guild_id: guild.guild_id,
      guild_name: guild.name,
      plan: plan.code,
      payer_subscriptions: running.length,
      saved_card: card ? toCardView(card) : null,
    };
  }

  async confirm(identity: InternalIdentity, guild: GuildAccess, request: ConfirmDto): Promise<ConfirmResult> {
    const user = requireUser(identity);
    const plan = await this.paidPlan(request.plan_code, 'plan_code');
    if (request.customer_key !== customerKeyOf(user.user_id)) {
      throw new ValidationError('customer_key does not belong to you; use the value prepare returned.', [
        { field: 'customer_key', message: 'customer_key must be the value prepare returned' },
      ]);
    }
    // First of all, this must be the user's own checkout, taken now for good (single use).
    await this.takeCheckout(user.user_id, guild.guild_id, request);
    // Refused before the provider is called; the partial unique index decides under concurrency.
    if (await this.subscriptions.findLive(guild.guild_id)) throw SubscriptionErrors.exists();
    if (request.auth_key === undefined) {
      // Checked again under the lock below; here so that nothing is asked of licensing in vain.
      await this.requireSavedCard(this.dataSource.manager, user.user_id);
    }
    const licenseId = await this.entitlements.reserveLicense(guild.guild_id);

    const issued =
      request.auth_key === undefined ? null : await this.issue(request.auth_key, request.customer_key);
    const { subscription, attempt, key } = await this.dataSource.transaction(async (manager) => {
      let key: BillingKeyRow;
      if (issued) {
        const previous = await this.billingKeys.lockForUser(manager, user.user_id);
        key = await this.billingKeys.saveForUser(manager, user.user_id, request.customer_key, issued);
        if (previous) await this.announceNewCard(manager, user.user_id, key, previous);
      } else {
        key = await this.requireSavedCard(manager, user.user_id, { lock: true });
      }
      const pending = await this.subscriptions.insertPending(manager, {
        id: uuidv7(),
        guildId: guild.guild_id,
        licenseId,
        billingKeyId: key.id,
        planCode: plan.code as PaidPlanCode,
        payerUserId: user.user_id,
        payerPlatformUserId: user.platform_user_id,
        guildName: guild.name,
      });
      const first = await this.attempts.insertPending(manager, {
        subscriptionId: pending.id,
        cycle: 1,
        retryNumber: 0,
        planCode: pending.plan_code,
        amountKrw: plan.price_krw,
        orderName: this.settings.orderName(plan.name, guild.name),
      });
      if (issued) await this.events.billingKeyIssued(manager, pending, key.card_last4);
      return { subscription: pending, attempt: first, key };
    });

    const settlement = await this.payments.charge(attempt, subscription);
    if (!settlement) {
      return {
        status: 202,
        body: {
          ...toSubscriptionView(subscription, key),
          payment: {
            status: 'processing',
            detail:
              'The payment is being processed. The subscription starts as soon as the provider confirms it.',
          },
        },
      };
    }
    if (settlement.attempt.status === 'failed') {
      throw SubscriptionErrors.paymentRejected(
        'The card was declined. Register another card and try again.',
        {
          subscription_id: subscription.id,
          provider_code: settlement.attempt.failure_code,
          provider_message: settlement.attempt.failure_message,
        },
      );
    }
    return { status: 200, body: toSubscriptionView(settlement.subscription, key) };
  }

  /**
   * The checkout this confirm belongs to, taken for good: it must be the user's (else it is
   * "not found", as an unknown id is), for this guild, plan and customer key, unexpired and
   * unused. Locked while checked and marked, so of two concurrent confirms one takes it and the
   * other is refused as already used; a refused confirm writes nothing and calls no provider.
   */
  private async takeCheckout(userId: string, guildId: string, request: ConfirmDto): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const checkout = await this.checkouts.lock(manager, request.checkout_id);
      refuseUnlessConfirmable(checkout, userId, guildId, request);
      if (!(await this.checkouts.markUsed(manager, checkout.id))) throw CheckoutErrors.used();
    });
  }

  /**
   * The payer's card that a confirm without `auth_key` charges; with `lock`, held until the
   * transaction ends so a concurrent new card cannot slip in between.
   */
  private async requireSavedCard(
    manager: EntityManager,
    userId: string,
    { lock = false } = {},
  ): Promise<BillingKeyRow> {
    const card = lock
      ? await this.billingKeys.lockForUser(manager, userId)
      : await this.billingKeys.findActiveForUser(manager, userId);
    if (card?.status === 'active') return card;
    throw new ValidationError('You have no card on file: register one with the card widget (auth_key).', [
      { field: 'auth_key', message: 'auth_key is required when no card is on file' },
    ]);
  }

  /** The new card replaced the payer's card: each of their running subscriptions is told which. */
  private async announceNewCard(
    manager: EntityManager,
    userId: string,
    card: BillingKeyRow,
    previous: BillingKeyRow,
  ): Promise<void> {
    const previousLast4 = previous.status === 'active' ? previous.card_last4 : null;
    for (const subscription of await this.subscriptions.listRunningOfPayer(manager, userId)) {
      await this.events.cardChanged(manager, subscription, card, previousLast4);
    }
  }

  /**
   * docs/behaviour.md §4.11: any refusal (4xx) answers 400 and stores nothing. A refusal of our own credentials
   * (401) is also an operator alert: no card will pass until the merchant key is fixed.
   */
  private async issue(authKey: string, customerKey: string): Promise<IssuedBillingKey> {
    try {
      return await this.provider.issueBillingKey(authKey, customerKey);
    } catch (error) {
      if (error instanceof ProviderRejectedError) {
        if (error.status === 401) {
          this.logger.error(
            { alert: 'provider_credentials_refused', provider_code: error.code },
            'the provider refused our secret key when issuing a billing key',
          );
        }
        throw CheckoutErrors.cardAuthenticationFailed({
          provider_code: error.code,
          provider_message: error.providerMessage,
        });
      }
      this.logger.error(
        { alert: 'provider_issue_failed', err: error instanceof Error ? error.message : 'unknown' },
        'the provider did not issue a billing key',
      );
      throw SubscriptionErrors.providerUnavailable(
        'The card could not be registered right now; nothing was charged. Try again in a moment.',
      );
    }
  }

  private async paidPlan(code: PlanCode, field: string): Promise<PlanDefinition> {
    const plan = (await this.entitlements.plans()).find((candidate) => candidate.code === code);
    if (!plan || plan.price_krw <= 0) {
      throw new ValidationError(`${field} must be a paid plan (PRO or ENTERPRISE).`, [
        { field, message: `${field} must be a paid plan` },
      ]);
    }
    return plan;
  }
}

/** Throws the refusal a confirm of `checkout` gets, if any (see `CheckoutService.takeCheckout`). */
export function refuseUnlessConfirmable(
  checkout: CheckoutRow | null,
  userId: string,
  guildId: string,
  request: Pick<ConfirmDto, 'plan_code' | 'customer_key'>,
): asserts checkout is CheckoutRow {
  if (!checkout || checkout.user_id !== userId) throw CheckoutErrors.notFound();
  if (checkout.used_at) throw CheckoutErrors.used();
  if (checkout.expired) throw CheckoutErrors.expired();
  if (checkout.guild_id !== guildId) throw CheckoutErrors.mismatch('guild_id');
  if (checkout.plan_code !== request.plan_code) throw CheckoutErrors.mismatch('plan_code');
  if (checkout.customer_key !== request.customer_key) throw CheckoutErrors.mismatch('customer_key');
}
