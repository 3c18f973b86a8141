import { PLAN_CODES, type PlanCode } from '@lib/contracts';
import { IsPageLimit } from '@lib/database';
import { IsIn } from 'class-validator';

export class ChangePlanDto {
  @IsIn(PLAN_CODES, { message: `new_plan_code must be one of ${PLAN_CODES.join(', ')}` })
  new_plan_code!: PlanCode;
}

export class ListSubscriptionsQuery {
  @IsPageLimit(100)
  limit = 20;
}

export class ListPaymentsQuery {
  @IsPageLimit(200)
  limit = 50;
}
