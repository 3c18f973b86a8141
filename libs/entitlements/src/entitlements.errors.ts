import type { PlanCode, PlanFeature, RestoreScope } from '@lib/contracts';
import { defineProblem } from '@lib/problem-details';
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

/** Why a gated action was refused: the plan lacks it, or the plan cannot be read. */
export const EntitlementErrors = {
  /**
   * The guild's plan lacks the feature an action needs (spec ErrPermissionDenied), with the lowest
   * plan that has it when the catalogue could say, so that a FREE guild asking for a restore learns
   * where restores begin.
   */
  featureRequired: defineProblem(
    { code: 'ErrPermissionDenied', status: 403, title: 'Your plan does not include this feature' },
    (feature: PlanFeature, planCode: PlanCode, requiredPlan?: RequiredPlan) => {
      const advice = upgradeAdvice(requiredPlan, 'use it');
      return {
        detail: `This needs ${feature}, which the guild's ${planCode} plan does not include. ${advice.sentence}`,
        extensions: { required_feature: feature, plan_code: planCode, ...advice.extensions },
      };
    },
  ),
  /**
   * The guild's plan includes restores but not every scope asked for (members' roles and bans are
   * on some plans only). The same code as a missing feature, as it is the same refusal to the user;
   * `missing_scopes` says which part of the request to drop or pay for.
   */
  restoreScopesRequired: defineProblem(
    { code: 'ErrPermissionDenied', status: 403, title: 'Your plan does not include this restore scope' },
    (missingScopes: readonly RestoreScope[], planCode: PlanCode, requiredPlan?: RequiredPlan) => {
      const advice = upgradeAdvice(requiredPlan, 'restore them');
      return {
        detail: `This restore puts back ${listInWords(missingScopes)}, which the guild's ${planCode} plan does not include. ${advice.sentence}`,
        extensions: { missing_scopes: [...missingScopes], plan_code: planCode, ...advice.extensions },
      };
    },
  ),
  /** Licensing could not answer; nothing gated may proceed without an answer. */
  licensingUnavailable: defineProblem(
    { code: 'ErrLicensingUnavailable', status: 503, title: 'Service unavailable' },
    () => ({ detail: 'The plan of this guild cannot be checked right now. Try again in a moment.' }),
  ),
} as const;
