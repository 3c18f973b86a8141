import { Injectable, Logger } from '@nestjs/common';
import { planRank } from '@lib/contracts';
import { OutboxWriter } from '@lib/outbox';
import { Counter } from 'prom-client';
import { DataSource, type EntityManager } from 'typeorm';
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

  constructor(
    private readonly dataSource: DataSource,
    private readonly plans: PlanCatalog,
  ) {}

  /**
   * The guild's licence id, creating its (FREE) licence if it has none yet. Billing asks at
   * checkout so that every event of the subscription names the licence (spec §6 `license_id`);
   * the row is updated in place from then on (spec appendix rule 8), so the id never changes.
   */
  async reserve(guildId: string, manager: EntityManager = this.dataSource.manager): Promise<string> {
    await manager.query(
      `INSERT INTO licensing.licenses (id, guild_id, plan_id, status) VALUES ($1, $2, $3, 'active')
       ON CONFLICT (guild_id) DO NOTHING`,
      [uuidv7(), guildId, this.plans.byCode('FREE').id],
    );
    const [row] = await manager.query<{ id: string }[]>(
      `SELECT id FROM licensing.licenses WHERE guild_id = $1`,
      [guildId],
    );
    return row.id;
  }

  /** Runs inside the consumer's transaction, which also records the event as processed. */
  async apply(manager: EntityManager, change: LicenseChange): Promise<LicenseChangeOutcome> {
    const repository = manager.getRepository(License);
    await this.reserve(change.guildId, manager);
    // The row lock serialises changes of one guild even across consumer rebalances.
    const current = await repository.findOneOrFail({
      where: { guildId: change.guildId },
      lock: { mode: 'pessimistic_write' },
    });
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
