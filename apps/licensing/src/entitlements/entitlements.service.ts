import { Injectable } from '@nestjs/common';
import type { Entitlements } from '@lib/contracts';
import { DataSource } from 'typeorm';
import { License } from '../licenses/license.entity';
import { PlanCatalog } from '../plans/plan-catalog';
import { entitlementsAt } from './entitlements';

/**
 * Answers "what may this guild do now" from the licence row. No cache here: one indexed read per
 * call; callers cache through the entitlements client (60 s, invalidated on licence events).
 */
@Injectable()
export class EntitlementsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly plans: PlanCatalog,
  ) {}

  async forGuild(guildId: string): Promise<{ entitlements: Entitlements; license: License | null }> {
    const license = await this.dataSource.getRepository(License).findOneBy({ guildId });
    const state = license
      ? {
          id: license.id,
          plan: this.plans.byId(license.planId),
          expiresAt: license.expiresAt,
          graceUntil: license.graceUntil,
        }
      : null;
    return {
      entitlements: entitlementsAt(guildId, state, this.plans.byCode('FREE'), new Date()),
      license,
    };
  }
}
