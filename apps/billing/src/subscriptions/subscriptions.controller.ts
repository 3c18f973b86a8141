import {
  applyDecorators,
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  ParseUUIDPipe,
  Post,
  Query,
  Res,
} from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import type { Response } from 'express';
import type { InternalIdentity } from '@lib/contracts';
import { RequireManageGuild, RequireManageGuildOf, ScopeGuildId } from '@lib/guild-access';
import { CurrentIdentity } from '@lib/identity';
import { ProblemAnswers, type ProblemKind } from '@lib/problem-details';
import type { PaymentView } from '../payments/payment-view';
import { type CancelView, PlanChangeService, type PlanChangeView } from './plan-change.service';
import type { SubscriptionDetailView, SubscriptionView } from './subscription';
import { ChangePlanDto, ListPaymentsQuery, ListSubscriptionsQuery } from './subscriptions.dto';
import { SubscriptionErrors } from './subscriptions.errors';
import { SubscriptionsService } from './subscriptions.service';

const uuid = new ParseUUIDPipe();

/**
 * A change the payer makes to subscription `:id` (PlanChangeService): a manager of its guild who
 * is not the payer is refused (403), and only an active subscription changes (409). `problems` adds
 * the route's own problems, listed first.
 */
function PayerChange(...problems: ProblemKind[]): MethodDecorator {
  return applyDecorators(
    HttpCode(200),
    RequireManageGuildOf(SubscriptionsService, { params: 'id' }),
    ProblemAnswers(...problems),
    ProblemAnswers(SubscriptionErrors.notPayer, SubscriptionErrors.notFound, SubscriptionErrors.notActive),
  );
}

/**
 * Access first, then validation: a subscription the caller may not see (neither its payer nor a
 * manager of its guild) answers the 404 of a missing one on every route, whatever the body.
 */
@Controller()
export class SubscriptionsController {
  constructor(
    private readonly subscriptions: SubscriptionsService,
    private readonly changes: PlanChangeService,
  ) {}

  @ApiOperation({ summary: "List the guild's subscriptions" })
  @Get('api/v1/guilds/:guildId/subscriptions')
  @RequireManageGuild({ params: 'guildId' })
  list(
    @Param('guildId', uuid) guildId: string,
    @Query() query: ListSubscriptionsQuery,
  ): Promise<{ items: SubscriptionView[] }> {
    return this.subscriptions.listForGuild(guildId, query.limit);
  }

  @ApiOperation({ summary: 'Get a subscription' })
  @ProblemAnswers(SubscriptionErrors.notFound)
  @Get('api/v1/subscriptions/:id')
  @RequireManageGuildOf(SubscriptionsService, { params: 'id' })
  get(@ScopeGuildId() guildId: string, @Param('id', uuid) id: string): Promise<SubscriptionDetailView> {
    return this.subscriptions.get(guildId, id);
  }

  @Get('api/v1/subscriptions/:id/payments')
  @ApiOperation({ summary: "List a subscription's payment attempts" })
  @ProblemAnswers(SubscriptionErrors.notFound)
  @RequireManageGuildOf(SubscriptionsService, { params: 'id' })
  payments(
    @ScopeGuildId() guildId: string,
    @Param('id', uuid) id: string,
    @Query() query: ListPaymentsQuery,
  ): Promise<{ items: PaymentView[] }> {
    return this.subscriptions.payments(guildId, id, query.limit);
  }

  /** docs/behaviour.md §4.7; an upgrade charges the prorated difference first (README departures). */
  @ApiOperation({ summary: 'Change plan' })
  @Post('api/v1/subscriptions/:id/change-plan')
  @PayerChange(
    SubscriptionErrors.paymentRejected,
    SubscriptionErrors.cancelScheduled,
    SubscriptionErrors.paymentPending,
    SubscriptionErrors.billingKeyMissing,
  )
  @ApiOkResponse({
    description: 'Done: a downgrade or cancel is scheduled, or an upgrade was charged and is in force.',
  })
  @ApiAcceptedResponse({
    description:
      "An upgrade's charge is not answered yet: `payment.status` is `pending`, the plan unchanged.",
  })
  async changePlan(
    @CurrentIdentity() identity: InternalIdentity,
    @Param('id', uuid) id: string,
    @Body() body: ChangePlanDto,
    @Res({ passthrough: true }) response: Response,
  ): Promise<PlanChangeView> {
    const result = await this.changes.changePlan(identity, id, body.new_plan_code);
    response.status(result.status);
    return result.body;
  }

  /** The undo of a downgrade: the same plan renews at period end. */
  @Delete('api/v1/subscriptions/:id/pending-downgrade')
  @ApiOperation({ summary: 'Drop a scheduled downgrade' })
  @PayerChange()
  dropPendingDowngrade(
    @CurrentIdentity() identity: InternalIdentity,
    @Param('id', uuid) id: string,
  ): Promise<PlanChangeView> {
    return this.changes.dropPendingDowngrade(identity, id);
  }

  /** docs/behaviour.md §4.8; the path without /api/v1 is the one the spec's dashboard flow gives. */
  @ApiOperation({ summary: 'Cancel at period end' })
  @Post(['api/v1/subscriptions/:id/cancel', 'subscriptions/:id/cancel'])
  @PayerChange()
  cancel(@CurrentIdentity() identity: InternalIdentity, @Param('id', uuid) id: string): Promise<CancelView> {
    return this.changes.cancel(identity, id);
  }

  @ApiOperation({ summary: 'Withdraw a scheduled cancel' })
  @Post('api/v1/subscriptions/:id/uncancel')
  @PayerChange()
  uncancel(
    @CurrentIdentity() identity: InternalIdentity,
    @Param('id', uuid) id: string,
  ): Promise<CancelView> {
    return this.changes.uncancel(identity, id);
  }
}
