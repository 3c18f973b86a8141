import type { PlanCode, PlanFeature, RestoreScope } from '@lib/contracts';
import { DomainError } from '@lib/problem-details';
import { listInWords, type RequiredPlan } from './plan-requirements';

/**
 * How a refusal ends: the plan to upgrade to when the catalogue named one, else the general advice
 * (the catalogue could not be read, or no plan has it). `required_plan` is then left out of the body
 * rather than sent empty, so a client never mistakes "unknown" for a plan.
 */
function upgradeAdvice(requiredPlan: RequiredPlan | undefined, use: string) {
  return requiredPlan
    ? {
        sentence: `Upgrade to ${requiredPlan.name} to ${use}.`,
        extensions: { required_plan: requiredPlan.code },
      }
    : { sentence: `Upgrade the plan to ${use}.`, extensions: {} };
}

/**
 * The guild's plan lacks the feature an action needs (spec ErrPermissionDenied), with the lowest plan
 * that has it when the catalogue could say, so that a FREE guild asking for a restore learns where
 * restores begin.
 */
export class PlanFeatureRequiredError extends DomainError {
  constructor(feature: PlanFeature, planCode: PlanCode, requiredPlan?: RequiredPlan) {
    const advice = upgradeAdvice(requiredPlan, 'use it');
    super(
      'ErrPermissionDenied',
      403,
      'Your plan does not include this feature',
      `This needs ${feature}, which the guild's ${planCode} plan does not include. ${advice.sentence}`,
      { required_feature: feature, plan_code: planCode, ...advice.extensions },
    );
  }
}

/**
 * The guild's plan includes restores but not every scope asked for (members' roles and bans may be
 * on some plans only). The same code as a missing feature, as it is the same refusal to the
 * user; `missing_scopes` says which part of the request to drop or pay for.
 */
export class PlanRestoreScopesRequiredError extends DomainError {
  constructor(missingScopes: readonly RestoreScope[], planCode: PlanCode, requiredPlan?: RequiredPlan) {
    const advice = upgradeAdvice(requiredPlan, 'restore them');
    super(
      'ErrPermissionDenied',
      403,
      'Your plan does not include this restore scope',
      `This restore puts back ${listInWords(missingScopes)}, which the guild's ${planCode} plan does not include. ${advice.sentence}`,
      { missing_scopes: [...missingScopes], plan_code: planCode, ...advice.extensions },
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
