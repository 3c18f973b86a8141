import { Controller, Get } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import type { PlanDefinition } from '@lib/contracts';
import { ProblemAnswers } from '@lib/problem-details';
import { PlanCatalog } from './plan-catalog';

/** The plans as the dashboard compares them: price, limits and features, from the catalogue. */
@Controller('api/v1/plans')
export class PlansController {
  constructor(private readonly plans: PlanCatalog) {}

  @Get()
  @ApiOperation({ summary: 'List the plans' })
  @ProblemAnswers()
  list(): { items: PlanDefinition[] } {
    return { items: this.plans.definitions() };
  }
}
