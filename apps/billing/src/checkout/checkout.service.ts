import { Injectable, Logger } from '@nestjs/common';
import type { InternalIdentity, PlanCode, PlanDefinition } from '@lib/contracts';
import { EntitlementsClient } from '@lib/entitlements';
import { GuildAccessClient, requireUser } from '@lib/guild-access';
import { DomainError, ValidationError } from '@lib/problem-details';
import { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { BillingSettings } from '../billing-settings';
import { BillingKeysRepository } from '../billing-keys/billing-keys.repository';
import { PaymentAttemptsRepository } from '../payments/payment-attempts.repository';
import { PaymentsService } from '../payments/payments.service';
import {
  type IssuedBillingKey,
  PaymentProviderClient,
  ProviderRejectedError,
} from '../provider/payment-provider.client';
import { type PaidPlanCode, type SubscriptionView, toSubscriptionView } from '../subscriptions/subscription';
import { SubscriptionEvents } from '../subscriptions/subscription-events';
import { SubscriptionExistsError, SubscriptionsRepository } from '../subscriptions/subscriptions.repository';
import type { ConfirmDto, PrepareQuery, PrepareView } from './checkout.dto';

/** The confirm answer: the subscription, and while the first charge is unanswered, a note saying so. */
export type ConfirmResult =
  | { status: 200; body: SubscriptionView }
  | { status: 202; body: SubscriptionView & { payment: { status: 'processing'; detail: string } } };

/** The provider's customer for a user: stable, so one card on file serves all their guilds. */
export function customerKeyOf(userId: string): string {
  return `user_${userId}`;
}

/**
 * Spec §4.4-4.5: prepare the card widget, then confirm: issue and store the billing key, create the
 * pending subscription and charge the first cycle, in that order, each step durable before the next
 * talks to the provider, so a crash anywhere leaves nothing half-written and nothing charged twice.
 */
@Injectable()
export class CheckoutService {
  private readonly logger = new Logger(CheckoutService.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly settings: BillingSettings,
    private readonly access: GuildAccessClient,
    private readonly entitlements: EntitlementsClient,
    private readonly provider: PaymentProviderClient,
    private readonly billingKeys: BillingKeysRepository,
    private readonly subscriptions: SubscriptionsRepository,
    private readonly attempts: PaymentAttemptsRepository,
    private readonly payments: PaymentsService,
    private readonly events: SubscriptionEvents,
  ) {}

  async prepare(identity: InternalIdentity, query: PrepareQuery): Promise<PrepareView> {
    const user = requireUser(identity);
    const guild = await this.access.requireManageGuild(identity, query.guild_id);
    const plan = await this.paidPlan(query.plan, 'plan');
    if (await this.subscriptions.findLive(query.guild_id)) throw new SubscriptionExistsError();
    return {
      customer_key: customerKeyOf(user.user_id),
      order_name: this.settings.orderName(plan.name, guild.name),
      amount: plan.price_krw,
      provider_client_key: this.settings.providerClientKey,
      guild_id: query.guild_id,
      plan: plan.code,
    };
  }

  async confirm(identity: InternalIdentity, request: ConfirmDto): Promise<ConfirmResult> {
    const user = requireUser(identity);
    const guild = await this.access.requireManageGuild(identity, request.guild_id);
    const plan = await this.paidPlan(request.plan_code, 'plan_code');
    if (request.customer_key !== customerKeyOf(user.user_id)) {
      throw new ValidationError('customer_key does not belong to you; use the value prepare returned.', [
        { field: 'customer_key', message: 'customer_key must be the value prepare returned' },
      ]);
    }
    // Refused before the provider is called; the partial unique index decides under concurrency.
    if (await this.subscriptions.findLive(request.guild_id)) throw new SubscriptionExistsError();
    const { license_id } = await this.entitlements.get(request.guild_id);

    const issued = await this.issue(request.auth_key, request.customer_key);
    const { subscription, attempt } = await this.dataSource.transaction(async (manager) => {
      const key = await this.billingKeys.saveForUser(manager, user.user_id, request.customer_key, issued);
      const pending = await this.subscriptions.insertPending(manager, {
        id: uuidv7(),
        guildId: request.guild_id,
        licenseId: license_id,
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
      await this.events.billingKeyIssued(manager, pending, key.card_last4);
      return { subscription: pending, attempt: first };
    });

    const settlement = await this.payments.charge(attempt, subscription);
    if (!settlement) {
      return {
        status: 202,
        body: {
          ...toSubscriptionView(subscription),
          payment: {
            status: 'processing',
            detail:
              'The payment is being processed. The subscription starts as soon as the provider confirms it.',
          },
        },
      };
    }
    if (settlement.attempt.status === 'failed') {
      throw new DomainError(
        'ErrPaymentRejected',
        402,
        'Payment failed',
        'The card was declined. Register another card and try again.',
        {
          subscription_id: subscription.id,
          provider_code: settlement.attempt.failure_code,
          provider_message: settlement.attempt.failure_message,
        },
      );
    }
    return { status: 200, body: toSubscriptionView(settlement.subscription) };
  }

  private async issue(authKey: string, customerKey: string): Promise<IssuedBillingKey> {
    try {
      return await this.provider.issueBillingKey(authKey, customerKey);
    } catch (error) {
      if (error instanceof ProviderRejectedError && error.status !== 401 && error.status !== 403) {
        throw new DomainError(
          'ErrCardAuthenticationFailed',
          400,
          'Card authentication failed',
          'The card could not be registered. Authenticate the card again, or use another one.',
          { provider_code: error.code, provider_message: error.providerMessage },
        );
      }
      this.logger.error(
        { alert: 'provider_issue_failed', err: error instanceof Error ? error.message : 'unknown' },
        'the provider did not issue a billing key',
      );
      throw new DomainError(
        'ErrProviderUnavailable',
        503,
        'Payment provider unavailable',
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
