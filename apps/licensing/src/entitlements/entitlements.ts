import type { Entitlements, PlanDefinition } from '@lib/contracts';

export interface LicenseState {
  id: string;
  plan: PlanDefinition;
  /** End of the paid period (docs/behaviour.md §3.3). */
  expiresAt: Date | null;
  /** A renewing subscription's grace past the period end; null when it ends at `expiresAt`. */
  graceUntil: Date | null;
}

/**
 * When a paid licence stops counting: at the period end for a subscription that ends then (spec
 * appendix rule 6: no grace), at the end of the renewal grace for one that renews
 * (docs/decisions/licence-through-renewals.md). Null for a paid licence without either: it never counts.
 */
export function inForceUntil(license: Pick<LicenseState, 'expiresAt' | 'graceUntil'>): Date | null {
  const { expiresAt, graceUntil } = license;
  if (!expiresAt || !graceUntil) return expiresAt ?? graceUntil;
  return graceUntil > expiresAt ? graceUntil : expiresAt;
}

/** A paid licence stops counting the instant it is no longer in force, whatever a job has done. */
export function isExpired(
  license: Pick<LicenseState, 'plan' | 'expiresAt' | 'graceUntil'>,
  now: Date,
): boolean {
  if (license.plan.code === 'FREE') return false;
  const until = inForceUntil(license);
  return until === null || until <= now;
}

/**
 * What a guild may do at `now`. Computed at read time rather than by a job flipping a status, so a
 * late job can never extend a licence. `expires_at` is when the plan in force stops counting unless
 * billing says more (the grace end for a renewing subscription): callers may cache it until then.
 */
export function entitlementsAt(
  guildId: string,
  license: LicenseState | null,
  free: PlanDefinition,
  now: Date,
): Entitlements {
  const licensed = license?.plan ?? free;
  const expired = license !== null && isExpired(license, now);
  const inForce = expired ? free : licensed;
  return {
    guild_id: guildId,
    license_id: license?.id ?? null,
    plan_code: inForce.code,
    licensed_plan_code: licensed.code,
    status: expired ? 'expired' : 'active',
    features: [...inForce.features],
    restore_scopes: [...inForce.restore_scopes],
    limits: { ...inForce.limits },
    expires_at: license ? (inForceUntil(license)?.toISOString() ?? null) : null,
  };
}
