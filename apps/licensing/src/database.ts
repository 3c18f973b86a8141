import { License } from './licenses/license.entity';
import { Init1763800000000 } from './migrations/1763800000000-init';
import { PlansAndLicenses1763900000000 } from './migrations/1763900000000-plans-and-licenses';
import { LicenseGraceAndReservedIds1765400000000 } from './migrations/1765400000000-license-grace-and-reserved-ids';
import { PlanRestoreScopes1766100000000 } from './migrations/1766100000000-plan-restore-scopes';
import { PlanAuditRetention1766400000001 } from './migrations/1766400000001-plan-audit-retention';
import { PlanExpressionScopes1766700000000 } from './migrations/1766700000000-plan-expression-scopes';
import { PlanAutoModScope1766700000001 } from './migrations/1766700000001-plan-automod-scope';
import { PlanWebhooksScope1766700000002 } from './migrations/1766700000002-plan-webhooks-scope';
import { PlanOnboardingScope1766700000003 } from './migrations/1766700000003-plan-onboarding-scope';
import { RetentionIndexes1766400000000 } from './migrations/1766400000000-retention-indexes';
import { Plan } from './plans/plan.entity';

export const licensingDatabase = {
  schema: 'licensing',
  entities: [Plan, License],
  migrations: [
    Init1763800000000,
    PlansAndLicenses1763900000000,
    LicenseGraceAndReservedIds1765400000000,
    PlanRestoreScopes1766100000000,
    RetentionIndexes1766400000000,
    PlanAuditRetention1766400000001,
    PlanExpressionScopes1766700000000,
    PlanAutoModScope1766700000001,
    PlanWebhooksScope1766700000002,
    PlanOnboardingScope1766700000003,
  ],
};
