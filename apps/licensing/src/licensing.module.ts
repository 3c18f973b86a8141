import { Module } from '@nestjs/common';
import { EntitlementsController } from './entitlements/entitlements.controller';
import { EntitlementsService } from './entitlements/entitlements.service';
import { LicenseEventsHandler } from './licenses/license-events.handler';
import { LicenseController } from './licenses/license.controller';
import { LicenseService } from './licenses/license.service';
import { PlanCatalog } from './plans/plan-catalog';
import { PlansController } from './plans/plans.controller';

/** Plans, licences and entitlements: the whole licensing domain, apart from infrastructure. */
@Module({
  controllers: [EntitlementsController, LicenseController, PlansController],
  providers: [PlanCatalog, LicenseService, LicenseEventsHandler, EntitlementsService],
  exports: [LicenseEventsHandler],
})
export class LicensingModule {}
