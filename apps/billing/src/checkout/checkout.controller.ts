import { Body, Controller, Get, HttpCode, Post, Query, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ProblemAnswers } from '@lib/problem-details';
import type { GuildAccess, InternalIdentity } from '@lib/contracts';
import { ManagedGuild, RequireManageGuild } from '@lib/guild-access';
import { CurrentIdentity } from '@lib/identity';
import type { Response } from 'express';
import { SubscriptionErrors } from '../subscriptions/subscriptions.errors';
import { CheckoutErrors } from './checkout.errors';
import { ConfirmDto, PrepareQuery, type PrepareView } from './checkout.dto';
import { type ConfirmResult, CheckoutService } from './checkout.service';

/** Both routes name their guild (`guild_id`): MANAGE_GUILD there is checked before validation. */
@Controller('api/v1/billing')
export class CheckoutController {
  constructor(private readonly checkout: CheckoutService) {}

  /** docs/behaviour.md §4.4. */
  @ApiOperation({ summary: 'Prepare a checkout' })
  @ProblemAnswers(SubscriptionErrors.exists)
  @Get('prepare')
  @RequireManageGuild({ query: 'guild_id' })
  prepare(
    @CurrentIdentity() identity: InternalIdentity,
    @ManagedGuild() guild: GuildAccess,
    @Query() query: PrepareQuery,
  ): Promise<PrepareView> {
    return this.checkout.prepare(identity, guild, query);
  }

  /**
   * docs/behaviour.md §4.5: 200 with the active subscription, 202 while the first charge is
   * unanswered. Only with the checkout `prepare` started (`checkout_id`), once.
   */
  @ApiOperation({ summary: 'Confirm a subscription' })
  @ProblemAnswers(
    CheckoutErrors.cardAuthenticationFailed,
    CheckoutErrors.mismatch,
    SubscriptionErrors.paymentRejected,
    CheckoutErrors.notFound,
    SubscriptionErrors.exists,
    CheckoutErrors.expired,
    CheckoutErrors.used,
  )
  @Post('confirm')
  @HttpCode(200)
  @RequireManageGuild({ body: 'guild_id' })
  @ApiOkResponse({ description: 'The first charge went through: the subscription is active.' })
  @ApiAcceptedResponse({
    description: 'The first charge is not answered yet: `payment.status` is `processing`.',
  })
  async confirm(
    @CurrentIdentity() identity: InternalIdentity,
    @ManagedGuild() guild: GuildAccess,
    @Body() body: ConfirmDto,
    @Res({ passthrough: true }) response: Response,
  ): Promise<ConfirmResult['body']> {
    const result = await this.checkout.confirm(identity, guild, body);
    response.status(result.status);
    return result.body;
  }
}
