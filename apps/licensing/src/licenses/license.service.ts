import { Injectable, Logger } from '@nestjs/common';
import { planRank } from '@lib/contracts';
import { Counter } from 'prom-client';
import type { EntityManager } from 'typeorm';
import { LicensingEvents } from '../licensing-events';
import { PlanCatalog } from '../plans/plan-catalog';
import type { LicenseChange } from './license-change';
import { LicensesRepository } from './licenses.repository';

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

  constructor(
    private readonly licenses: LicensesRepository,
    private readonly plans: PlanCatalog,
    private readonly events: LicensingEvents,
  ) {}

  /**
   * The guild's licence id, creating its (FREE) licence if it has none yet. Billing asks at
   * checkout so that every event of the subscription names the licence (docs/behaviour.md §6 `license_id`);
   * the row is updated in place from then on (docs/behaviour.md appendix rule 8), so the id never changes.
   */
  async reserve(guildId: string, manager?: EntityManager): Promise<string> {
    return this.licenses.reserve(guildId, this.plans.byCode('FREE').id, manager);
  }

  /** Runs inside the consumer's transaction, which also records the event as processed. */
  async apply(manager: EntityManager, change: LicenseChange): Promise<LicenseChangeOutcome> {
    await this.reserve(change.guildId, manager);
    // The row lock serialises changes of one guild even across consumer rebalances.
    const current = await this.licenses.lockByGuild(manager, change.guildId);
    if (!change.isNewerThan(current)) {
      staleLicenseEventsCounter.inc({ event_type: change.cause });
      this.logger.log(
        { guild_id: change.guildId, event_id: change.eventId, event_type: change.cause },
        'older than the last applied billing event; licence left as it is',
      );
      return 'stale';
    }

    const oldPlan = this.plans.byId(current.planId);
    const newPlan = this.plans.byCode(change.planCode);
    const license = current;
    Object.assign(license, {
      planId: newPlan.id,
      expiresAt: change.periodEnd,
      graceUntil: change.graceUntil,
      subscriptionId: change.subscriptionId,
      lastEventAt: change.occurredAt,
      lastEventId: change.eventId,
    });
    await this.licenses.save(manager, license);

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
    if (direction > 0) {
      await this.events.upgraded(manager, license, common);
      return 'upgraded';
    }
    const removed_features = oldPlan.features.filter((feature) => !newPlan.features.includes(feature));
    await this.events.downgraded(manager, license, { ...common, removed_features });
    return 'downgraded';
  }
}
