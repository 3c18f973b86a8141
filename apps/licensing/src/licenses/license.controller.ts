import { ApiOperation } from '@nestjs/swagger';
import { Controller, Get, Param, ParseUUIDPipe } from '@nestjs/common';
import type { PlanCode, PlanFeature, PlanLimits } from '@lib/contracts';
import { RequireManageGuild } from '@lib/guild-access';
import { EntitlementsService } from '../entitlements/entitlements.service';
import { PlanCatalog } from '../plans/plan-catalog';

/** The licence as the dashboard shows it. */
export interface LicenseView {
  guild_id: string;
  license_id: string | null;
  /** The plan in force now (FREE once a paid licence has expired). */
  plan: { code: PlanCode; name: string; rank: number; price_krw: number };
  licensed_plan_code: PlanCode;
  status: 'active' | 'expired';
  features: PlanFeature[];
  limits: PlanLimits;
  /** End of the paid period; null on FREE. */
  expires_at: string | null;
  /**
   * The subscription renews: the plan stays in force past `expires_at` until this time, through
   * the renewal charge and any retries of a failed one. Null when the plan ends at `expires_at`.
   */
  grace_until: string | null;
  subscription_id: string | null;
}

@Controller('api/v1/guilds/:guildId/license')
export class LicenseController {
  constructor(
    private readonly entitlements: EntitlementsService,
    private readonly plans: PlanCatalog,
  ) {}

  @ApiOperation({ summary: "Get the guild's licence" })
  @Get()
  @RequireManageGuild({ params: 'guildId' })
  async get(@Param('guildId', new ParseUUIDPipe()) guildId: string): Promise<LicenseView> {
    const { entitlements, license } = await this.entitlements.forGuild(guildId);
    const { code, name, rank, price_krw } = this.plans.byCode(entitlements.plan_code);
    return {
      guild_id: guildId,
      license_id: entitlements.license_id,
      plan: { code, name, rank, price_krw },
      licensed_plan_code: entitlements.licensed_plan_code,
      status: entitlements.status,
      features: entitlements.features,
      limits: entitlements.limits,
      expires_at: license?.expiresAt?.toISOString() ?? null,
      grace_until: license?.graceUntil?.toISOString() ?? null,
      subscription_id: license?.subscriptionId ?? null,
    };
  }
}
