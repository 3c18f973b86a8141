import type { PlanCode, PlanFeature } from '@lib/contracts';
import { DomainError } from '@lib/problem-details';

/** The guild's plan lacks the feature an action needs (spec ErrPermissionDenied). */
export class PlanFeatureRequiredError extends DomainError {
  constructor(feature: PlanFeature, planCode: PlanCode) {
    super(
      'ErrPermissionDenied',
      403,
      'Your plan does not include this feature',
      `This needs ${feature}, which the guild's ${planCode} plan does not include. Upgrade the plan to use it.`,
      { required_feature: feature, plan_code: planCode },
    );
  }
}

/** Licensing could not answer; nothing gated may proceed without an answer. */
export class LicensingUnavailableError extends DomainError {
  constructor() {
    super(
      'ErrLicensingUnavailable',
      503,
      'Service unavailable',
      'The plan of this guild cannot be checked right now. Try again in a moment.',
    );
  }
}
