import type { Entitlements, PlanDefinition, RestoreScope } from '@lib/contracts';

/** The plan a refusal names as the way in: its code for clients, its name for people. */
export type RequiredPlan = Pick<PlanDefinition, 'code' | 'name'>;

/**
 * The lowest-ranked plan of the catalogue that `covers` what was asked, or undefined when none does.
 * Ranked by `rank` rather than by the catalogue's order, so an answer listed in another order still
 * names the cheapest way in.
 */
export function lowestPlanWhere(
  plans: readonly PlanDefinition[],
  covers: (plan: PlanDefinition) => boolean,
): PlanDefinition | undefined {
  return plans
    .filter(covers)
    .reduce<PlanDefinition | undefined>(
      (lowest, plan) => (lowest === undefined || plan.rank < lowest.rank ? plan : lowest),
      undefined,
    );
}

/** The requested scopes the plan in force does not list, each once, in the order asked. */
export function missingRestoreScopes(
  entitlements: Pick<Entitlements, 'restore_scopes'>,
  scopes: readonly RestoreScope[],
): RestoreScope[] {
  return [...new Set(scopes)].filter((scope) => !entitlements.restore_scopes.includes(scope));
}

/** "bans", "member_roles and bans", "roles, channels and bans": for a problem's detail. */
export function listInWords(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}
