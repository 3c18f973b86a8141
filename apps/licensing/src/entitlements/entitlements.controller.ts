import { Controller, Get, HttpCode, Param, ParseUUIDPipe, Post } from '@nestjs/common';
import type { Entitlements, InternalIdentity, PlanDefinition, ReservedLicense } from '@lib/contracts';
import { CurrentIdentity, ServiceRoute } from '@lib/identity';
import { CommonErrors } from '@lib/problem-details';
import { LicenseService } from '../licenses/license.service';
import { PlanCatalog } from '../plans/plan-catalog';
import { EntitlementsService } from './entitlements.service';

/** The internal entitlements API that recovery and billing ask before any gated action. */
@ServiceRoute()
@Controller('internal/v1')
export class EntitlementsController {
  constructor(
    private readonly entitlements: EntitlementsService,
    private readonly licenses: LicenseService,
    private readonly plans: PlanCatalog,
  ) {}

  @Get('guilds/:guildId/entitlements')
  async forGuild(@Param('guildId', new ParseUUIDPipe()) guildId: string): Promise<Entitlements> {
    return (await this.entitlements.forGuild(guildId)).entitlements;
  }

  /**
   * The guild's licence id, its FREE licence created if it has none: billing asks at checkout so
   * that its events name the licence (docs/behaviour.md §6). Only billing, which sells licences, may create one.
   */
  @Post('guilds/:guildId/license')
  @HttpCode(200)
  async reserve(
    @CurrentIdentity() caller: InternalIdentity,
    @Param('guildId', new ParseUUIDPipe()) guildId: string,
  ): Promise<ReservedLicense> {
    if (caller.kind !== 'service' || caller.service !== 'billing') {
      throw CommonErrors.forbidden('Only billing creates licences.');
    }
    return { guild_id: guildId, license_id: await this.licenses.reserve(guildId) };
  }

  @Get('plans')
  list(): PlanDefinition[] {
    return this.plans.definitions();
  }
}
