import { Injectable } from '@nestjs/common';
import type { Entitlements } from '@lib/contracts';
import type { License } from '../licenses/license.entity';
import { LicensesRepository } from '../licenses/licenses.repository';
import { PlanCatalog } from '../plans/plan-catalog';
import { entitlementsAt } from './entitlements';

/**
 * Answers "what may this guild do now" from the licence row. No cache here: one indexed read per
 * call; callers cache through the entitlements client (60 s, invalidated on licence events).
 */
@Injectable()
export class EntitlementsService {
  constructor(
    private readonly licenses: LicensesRepository,
    private readonly plans: PlanCatalog,
  ) {}

  async forGuild(guildId: string): Promise<{ entitlements: Entitlements; license: License | null }> {
    const license = await this.licenses.findByGuild(guildId);
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
