import { Injectable } from '@nestjs/common';
import type { InternalIdentity } from '@lib/contracts';
import { GuildAccessClient, requireUser } from '@lib/guild-access';
import { NotFoundError } from '@lib/problem-details';
import { type SubscriptionView, toSubscriptionView } from './subscription';
import { SubscriptionsRepository } from './subscriptions.repository';

/** Reading subscriptions: the payer, and administrators of the guild, may see them. */
@Injectable()
export class SubscriptionsService {
  constructor(
    private readonly subscriptions: SubscriptionsRepository,
    private readonly access: GuildAccessClient,
  ) {}

  async listForGuild(
    identity: InternalIdentity,
    guildId: string,
    limit: number,
  ): Promise<{ items: SubscriptionView[] }> {
    await this.access.requireManageGuild(identity, guildId);
    const rows = await this.subscriptions.listForGuild(guildId, limit);
    return { items: rows.map(toSubscriptionView) };
  }

  async get(identity: InternalIdentity, id: string): Promise<SubscriptionView> {
    const user = requireUser(identity);
    const row = await this.subscriptions.get(id);
    if (!row) throw new NotFoundError('ErrSubscriptionNotFound', 'Subscription');
    if (row.payer_user_id !== user.user_id) {
      // Anyone else must administer the guild; otherwise the subscription is not theirs to see.
      const access = await this.access.access(row.guild_id, user.platform_user_id).catch(() => null);
      if (!access?.active || !access.manage_guild)
        throw new NotFoundError('ErrSubscriptionNotFound', 'Subscription');
    }
    return toSubscriptionView(row);
  }
}
