import { Injectable, type OnModuleInit } from '@nestjs/common';
import { PLAN_CODES, type PlanCode, type PlanDefinition } from '@lib/contracts';
import { PlansRepository } from './plans.repository';

export interface CatalogPlan extends PlanDefinition {
  id: string;
}

/**
 * The plans, read once at start: they change only by migration, so every request and event can
 * use them without a query.
 */
@Injectable()
export class PlanCatalog implements OnModuleInit {
  private plans: CatalogPlan[] = [];

  constructor(private readonly repository: PlansRepository) {}

  async onModuleInit(): Promise<void> {
    const rows = await this.repository.allInRankOrder();
    const missing = PLAN_CODES.filter((code) => !rows.some((plan) => plan.code === code));
    if (missing.length > 0)
      throw new Error(`licensing.plans lacks ${missing.join(', ')}; run the migrations`);
    this.plans = rows.map((row) => Object.freeze({ id: row.id, ...row.toDefinition() }));
  }

  byCode(code: PlanCode): CatalogPlan {
    return this.find((plan) => plan.code === code, code);
  }

  byId(id: string): CatalogPlan {
    return this.find((plan) => plan.id === id, id);
  }

  /** Every plan, in rank order, without internal ids. */
  definitions(): PlanDefinition[] {
    return this.plans.map(({ id: _id, ...definition }) => definition);
  }

  private find(predicate: (plan: CatalogPlan) => boolean, key: string): CatalogPlan {
    const plan = this.plans.find(predicate);
    if (!plan) throw new Error(`no plan ${key} in the catalogue`);
    return plan;
  }
}
