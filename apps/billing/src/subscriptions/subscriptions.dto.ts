import { PLAN_CODES, type PlanCode } from '@lib/contracts';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';

export class ChangePlanDto {
  @IsIn(PLAN_CODES, { message: `new_plan_code must be one of ${PLAN_CODES.join(', ')}` })
  new_plan_code!: PlanCode;
}

export class ListSubscriptionsQuery {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit = 20;
}

export class ListPaymentsQuery {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(200)
  limit = 50;
}
