import { Module } from '@nestjs/common';
import { EntitlementsController } from './entitlements/entitlements.controller';
import { EntitlementsService } from './entitlements/entitlements.service';
import { LicenseEventsHandler } from './licenses/license-events.handler';
import { LicenseController } from './licenses/license.controller';
import { LicenseService } from './licenses/license.service';
import { LicensesRepository } from './licenses/licenses.repository';
import { LicensingEvents } from './licensing-events';
import { PlanCatalog } from './plans/plan-catalog';
import { PlansController } from './plans/plans.controller';
import { PlansRepository } from './plans/plans.repository';

/** Plans, licences and entitlements: the whole licensing domain, apart from infrastructure. */
@Module({
  controllers: [EntitlementsController, LicenseController, PlansController],
  providers: [
    PlansRepository,
    PlanCatalog,
    LicensesRepository,
    LicensingEvents,
    LicenseService,
    LicenseEventsHandler,
    EntitlementsService,
  ],
  exports: [LicenseEventsHandler],
})
export class LicensingModule {}
