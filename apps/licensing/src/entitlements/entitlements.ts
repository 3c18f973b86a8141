import type { Entitlements, PlanDefinition } from '@lib/contracts';

export interface LicenseState {
  id: string;
  plan: PlanDefinition;
  expiresAt: Date | null;
}

/** A paid licence stops counting the instant its period ends: no grace (spec appendix rule 6). */
export function isExpired(license: Pick<LicenseState, 'plan' | 'expiresAt'>, now: Date): boolean {
  return license.plan.code !== 'FREE' && (license.expiresAt === null || license.expiresAt <= now);
}

/**
 * What a guild may do at `now`. Computed at read time rather than by a job flipping a status, so a
 * late job can never extend a licence.
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
    limits: { ...inForce.limits },
    expires_at: license?.expiresAt?.toISOString() ?? null,
  };
}
