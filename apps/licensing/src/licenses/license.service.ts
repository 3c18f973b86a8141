import { Injectable, Logger } from '@nestjs/common';
import { planRank } from '@lib/contracts';
import { OutboxWriter } from '@lib/outbox';
import { Counter } from 'prom-client';
import type { EntityManager } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { PlanCatalog } from '../plans/plan-catalog';
import type { LicenseChange } from './license-change';
import { License } from './license.entity';

export const staleLicenseEventsCounter = new Counter({
  name: 'licensing_stale_events_total',
  help: 'Billing events ignored because a newer one was already applied to the licence',
  labelNames: ['event_type'],
});

export type LicenseChangeOutcome = 'upgraded' | 'downgraded' | 'unchanged' | 'stale';

/** Applies billing's subscription changes to the guild's licence and announces rank changes. */
@Injectable()
export class LicenseService {
  private readonly logger = new Logger(LicenseService.name);
  private readonly outbox = new OutboxWriter('licensing', 'licensing');

  constructor(private readonly plans: PlanCatalog) {}

  /** Runs inside the consumer's transaction, which also records the event as processed. */
  async apply(manager: EntityManager, change: LicenseChange): Promise<LicenseChangeOutcome> {
    const repository = manager.getRepository(License);
    // The row lock serialises changes of one guild even across consumer rebalances.
    const current = await repository.findOne({
      where: { guildId: change.guildId },
      lock: { mode: 'pessimistic_write' },
    });
    if (current && !change.isNewerThan(current)) {
      staleLicenseEventsCounter.inc({ event_type: change.cause });
      this.logger.log(
        { guild_id: change.guildId, event_id: change.eventId, event_type: change.cause },
        'older than the last applied billing event; licence left as it is',
      );
      return 'stale';
    }

    const oldPlan = current ? this.plans.byId(current.planId) : this.plans.byCode('FREE');
    const newPlan = this.plans.byCode(change.planCode);
    const license = current ?? repository.create({ id: uuidv7(), guildId: change.guildId, status: 'active' });
    Object.assign(license, {
      planId: newPlan.id,
      expiresAt: change.periodEnd,
      subscriptionId: change.subscriptionId,
      lastEventAt: change.occurredAt,
      lastEventId: change.eventId,
    });
    await repository.save(license);

    const direction = Math.sign(planRank(newPlan.code) - planRank(oldPlan.code));
    if (direction === 0) return 'unchanged';
    const common = {
      license_id: license.id,
      guild_id: license.guildId,
      old_plan_code: oldPlan.code,
      new_plan_code: newPlan.code,
      features: [...newPlan.features],
      expires_at: license.expiresAt?.toISOString() ?? null,
      cause: change.cause,
    };
    const event = { aggregate_type: 'license', aggregate_id: license.id, guild_id: license.guildId };
    if (direction > 0) {
      await this.outbox.append(manager, { ...event, type: 'LicenseUpgraded', payload: common });
      return 'upgraded';
    }
    const removed_features = oldPlan.features.filter((feature) => !newPlan.features.includes(feature));
    await this.outbox.append(manager, {
      ...event,
      type: 'LicenseDowngraded',
      payload: { ...common, removed_features },
    });
    return 'downgraded';
  }
}
