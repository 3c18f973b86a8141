import { Body, Controller, Get, HttpCode, Param, ParseUUIDPipe, Post, Query } from '@nestjs/common';
import type { InternalIdentity } from '@lib/contracts';
import { CurrentIdentity } from '@lib/identity';
import { type CancelView, PlanChangeService, type PlanChangeView } from './plan-change.service';
import type { SubscriptionView } from './subscription';
import { ChangePlanDto, ListSubscriptionsQuery } from './subscriptions.dto';
import { SubscriptionsService } from './subscriptions.service';

const uuid = new ParseUUIDPipe();

@Controller()
export class SubscriptionsController {
  constructor(
    private readonly subscriptions: SubscriptionsService,
    private readonly changes: PlanChangeService,
  ) {}

  @Get('api/v1/guilds/:guildId/subscriptions')
  list(
    @CurrentIdentity() identity: InternalIdentity,
    @Param('guildId', uuid) guildId: string,
    @Query() query: ListSubscriptionsQuery,
  ): Promise<{ items: SubscriptionView[] }> {
    return this.subscriptions.listForGuild(identity, guildId, query.limit);
  }

  @Get('api/v1/subscriptions/:id')
  get(
    @CurrentIdentity() identity: InternalIdentity,
    @Param('id', uuid) id: string,
  ): Promise<SubscriptionView> {
    return this.subscriptions.get(identity, id);
  }

  /** Spec §4.7. */
  @Post('api/v1/subscriptions/:id/change-plan')
  @HttpCode(200)
  changePlan(
    @CurrentIdentity() identity: InternalIdentity,
    @Param('id', uuid) id: string,
    @Body() body: ChangePlanDto,
  ): Promise<PlanChangeView> {
    return this.changes.changePlan(identity, id, body.new_plan_code);
  }

  /** Spec §4.8; the path without /api/v1 is the one the spec's dashboard flow gives. */
  @Post(['api/v1/subscriptions/:id/cancel', 'subscriptions/:id/cancel'])
  @HttpCode(200)
  cancel(@CurrentIdentity() identity: InternalIdentity, @Param('id', uuid) id: string): Promise<CancelView> {
    return this.changes.cancel(identity, id);
  }

  @Post('api/v1/subscriptions/:id/uncancel')
  @HttpCode(200)
  uncancel(
    @CurrentIdentity() identity: InternalIdentity,
    @Param('id', uuid) id: string,
  ): Promise<CancelView> {
    return this.changes.uncancel(identity, id);
  }
}
