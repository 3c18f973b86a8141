import { Controller, Get, Param, ParseUUIDPipe } from '@nestjs/common';
import type { Entitlements, PlanDefinition } from '@lib/contracts';
import { ServiceRoute } from '@lib/identity';
import { PlanCatalog } from '../plans/plan-catalog';
import { EntitlementsService } from './entitlements.service';

/** The internal entitlements API that recovery and billing ask before any gated action. */
@ServiceRoute()
@Controller('internal/v1')
export class EntitlementsController {
  constructor(
    private readonly entitlements: EntitlementsService,
    private readonly plans: PlanCatalog,
  ) {}

  @Get('guilds/:guildId/entitlements')
  async forGuild(@Param('guildId', new ParseUUIDPipe()) guildId: string): Promise<Entitlements> {
    return (await this.entitlements.forGuild(guildId)).entitlements;
  }

  @Get('plans')
  list(): PlanDefinition[] {
    return this.plans.definitions();
  }
}
