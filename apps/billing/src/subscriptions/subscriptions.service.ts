import { Injectable } from '@nestjs/common';
import type { GuildResourceLookup, UserIdentity } from '@lib/guild-access';
import { NotFoundError } from '@lib/problem-details';
import { DataSource } from 'typeorm';
import { BillingKeysRepository } from '../billing-keys/billing-keys.repository';
import { type SubscriptionView, toSubscriptionView } from './subscription';
import { SubscriptionsRepository } from './subscriptions.repository';

/**
 * Reading subscriptions. The payer, and managers of the guild, may see one; to anyone else it does
 * not exist. As a GuildResourceLookup this says so to the routes that name a subscription, before
 * they validate anything; the payer rule for changes (spec §5.3) is PlanChangeService's.
 */
@Injectable()
export class SubscriptionsService implements GuildResourceLookup {
  constructor(
    private readonly dataSource: DataSource,
    private readonly subscriptions: SubscriptionsRepository,
    private readonly billingKeys: BillingKeysRepository,
  ) {}

  async find(id: string, user: UserIdentity): Promise<{ guildId: string; ownedByCaller: boolean } | null> {
    const row = await this.subscriptions.get(id);
    return row ? { guildId: row.guild_id, ownedByCaller: row.payer_user_id === user.user_id } : null;
  }

  notFound(): NotFoundError {
    return new NotFoundError('ErrSubscriptionNotFound', 'Subscription');
  }

  async listForGuild(guildId: string, limit: number): Promise<{ items: SubscriptionView[] }> {
    const rows = await this.subscriptions.listForGuild(guildId, limit);
    const cards = await this.billingKeys.getMany(
      this.dataSource.manager,
      rows.map((row) => row.billing_key_id),
    );
    return { items: rows.map((row) => toSubscriptionView(row, cards.get(row.billing_key_id)!)) };
  }

  /** The subscription of `guildId`, the guild the route found it in. */
  async get(guildId: string, id: string): Promise<SubscriptionView> {
    const row = await this.subscriptions.get(id);
    if (row?.guild_id !== guildId) throw this.notFound();
    const card = await this.billingKeys.get(this.dataSource.manager, row.billing_key_id);
    return toSubscriptionView(row, card!);
  }
}
