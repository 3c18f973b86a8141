import { Injectable } from '@nestjs/common';
import { EntitlementsClient } from '@lib/entitlements';
import type { GuildResourceLookup, UserIdentity } from '@lib/guild-access';
import type { DomainError } from '@lib/problem-details';
import { DataSource } from 'typeorm';
import { BillingKeysRepository } from '../billing-keys/billing-keys.repository';
import { PaymentAttemptsRepository } from '../payments/payment-attempts.repository';
import { type PaymentView, toPaymentView } from '../payments/payment-view';
import {
  nextChargeOf,
  type PaidPlanCode,
  type SubscriptionDetailView,
  type SubscriptionRow,
  type SubscriptionView,
  toSubscriptionView,
  upgradeOptionsOf,
} from './subscription';
import { SubscriptionErrors } from './subscriptions.errors';
import { SubscriptionsRepository } from './subscriptions.repository';

/**
 * Reading subscriptions. The payer, and managers of the guild, may see one; to anyone else it does
 * not exist. As a GuildResourceLookup this says so to the routes that name a subscription, before
 * they validate anything; the payer rule for changes (docs/behaviour.md §5.3) is PlanChangeService's.
 */
@Injectable()
export class SubscriptionsService implements GuildResourceLookup {
  constructor(
    private readonly dataSource: DataSource,
    private readonly subscriptions: SubscriptionsRepository,
    private readonly billingKeys: BillingKeysRepository,
    private readonly attempts: PaymentAttemptsRepository,
    private readonly entitlements: EntitlementsClient,
  ) {}

  async find(id: string, user: UserIdentity): Promise<{ guildId: string; ownedByCaller: boolean } | null> {
    const row = await this.subscriptions.get(id);
    return row ? { guildId: row.guild_id, ownedByCaller: row.payer_user_id === user.user_id } : null;
  }

  notFound(): DomainError {
    return SubscriptionErrors.notFound();
  }

  async listForGuild(guildId: string, limit: number): Promise<{ items: SubscriptionView[] }> {
    const rows = await this.subscriptions.listForGuild(guildId, limit);
    const cards = await this.billingKeys.getMany(
      this.dataSource.manager,
      rows.map((row) => row.billing_key_id),
    );
    return { items: rows.map((row) => toSubscriptionView(row, cards.get(row.billing_key_id)!)) };
  }

  /**
   * The subscription of `guildId`, the guild the route found it in, with its next charge and what
   * an upgrade would charge now.
   */
  async get(guildId: string, id: string): Promise<SubscriptionDetailView> {
    const row = await this.inGuild(guildId, id);
    const card = await this.billingKeys.get(this.dataSource.manager, row.billing_key_id);
    const plans = await this.entitlements.plans();
    const priceOf = (code: PaidPlanCode) => plans.find((plan) => plan.code === code)?.price_krw ?? 0;
    const pending = await this.attempts.pendingOf(this.dataSource.manager, row.id);
    const paid = plans.flatMap((plan) =>
      plan.code === 'FREE' ? [] : [{ code: plan.code, price_krw: plan.price_krw }],
    );
    return {
      ...toSubscriptionView(row, card!),
      next_charge: nextChargeOf(row, priceOf),
      upgrade_options: upgradeOptionsOf(row, paid, pending !== null, new Date()),
    };
  }

  /** Every charge of the subscription, newest first (a month's renewal and its retries included). */
  async payments(guildId: string, id: string, limit: number): Promise<{ items: PaymentView[] }> {
    const row = await this.inGuild(guildId, id);
    const attempts = await this.attempts.listForSubscription(this.dataSource.manager, row.id, limit);
    return { items: attempts.map(toPaymentView) };
  }

  private async inGuild(guildId: string, id: string): Promise<SubscriptionRow> {
    const row = await this.subscriptions.get(id);
    if (row?.guild_id !== guildId) throw this.notFound();
    return row;
  }
}
