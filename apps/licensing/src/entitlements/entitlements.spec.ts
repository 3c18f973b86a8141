import type { PlanDefinition } from '@lib/contracts';
import { entitlementsAt, inForceUntil, isExpired } from './entitlements';

const FREE: PlanDefinition = {
  code: 'FREE',
  rank: 0,
  name: 'Free',
  price_krw: 0,
  features: [],
  restore_scopes: [],
  limits: {
    snapshot_manual_max: 0,
    scheduled_snapshot_retention_days: null,
    audit_log_retention_days: 30,
    snapshot_image_bytes: 0,
  },
};
const PRO: PlanDefinition = {
  code: 'PRO',
  rank: 1,
  name: 'Pro',
  price_krw: 9900,
  features: ['RECOVERY_RESTORE', 'RECOVERY_SNAPSHOT_MANUAL'],
  restore_scopes: ['roles', 'channels', 'permission_overrides', 'guild_settings', 'member_roles', 'bans'],
  limits: {
    snapshot_manual_max: 1,
    scheduled_snapshot_retention_days: 7,
    audit_log_retention_days: 90,
    snapshot_image_bytes: 0,
  },
};

describe(entitlementsAt.name, () => {
  const now = new Date('2026-11-22T12:00:00.000Z');
  const guildId = '01a20182-0000-7000-8000-000000000001';

  it('serves FREE to a guild without a licence', () => {
    expect(entitlementsAt(guildId, null, FREE, now)).toEqual({
      guild_id: guildId,
      license_id: null,
      plan_code: 'FREE',
      licensed_plan_code: 'FREE',
      status: 'active',
      features: [],
      restore_scopes: [],
      limits: {
        snapshot_manual_max: 0,
        scheduled_snapshot_retention_days: null,
        audit_log_retention_days: 30,
        snapshot_image_bytes: 0,
      },
      expires_at: null,
    });
  });

  it('serves the paid plan until the last millisecond of the period', () => {
    const license = { id: 'l1', plan: PRO, expiresAt: new Date(now.getTime() + 1), graceUntil: null };
    const result = entitlementsAt(guildId, license, FREE, now);
    expect(result).toMatchObject({
      plan_code: 'PRO',
      status: 'active',
      features: PRO.features,
      restore_scopes: PRO.restore_scopes,
    });
    expect(result.limits.snapshot_manual_max).toBe(1);
  });

  it('serves FREE at once when the period has ended, keeping the licensed plan visible', () => {
    const license = { id: 'l1', plan: PRO, expiresAt: now, graceUntil: null };
    expect(entitlementsAt(guildId, license, FREE, now)).toMatchObject({
      license_id: 'l1',
      plan_code: 'FREE',
      licensed_plan_code: 'PRO',
      status: 'expired',
      features: [],
      restore_scopes: [],
      limits: { snapshot_manual_max: 0 },
      expires_at: now.toISOString(),
    });
  });

  it('keeps a renewing licence in force past its period end until the grace ends', () => {
    const periodEnd = new Date(now.getTime() - 60_000);
    const graceUntil = new Date(now.getTime() + 1);
    const license = { id: 'l1', plan: PRO, expiresAt: periodEnd, graceUntil };
    expect(entitlementsAt(guildId, license, FREE, now)).toMatchObject({
      plan_code: 'PRO',
      status: 'active',
      features: PRO.features,
      expires_at: graceUntil.toISOString(),
    });
    expect(isExpired(license, graceUntil)).toBe(true);
  });

  it('ends a licence at its period end once the grace is dropped (a scheduled cancel)', () => {
    const license = { id: 'l1', plan: PRO, expiresAt: now, graceUntil: null };
    expect(entitlementsAt(guildId, license, FREE, now)).toMatchObject({
      plan_code: 'FREE',
      status: 'expired',
    });
  });

  it('counts whichever of period end and grace is later', () => {
    const early = new Date('2026-11-01T00:00:00.000Z');
    const late = new Date('2026-12-01T00:00:00.000Z');
    expect(inForceUntil({ expiresAt: late, graceUntil: early })).toEqual(late);
    expect(inForceUntil({ expiresAt: early, graceUntil: late })).toEqual(late);
    expect(inForceUntil({ expiresAt: null, graceUntil: null })).toBeNull();
  });

  it('never lets a paid licence without an end date count', () => {
    expect(isExpired({ plan: PRO, expiresAt: null, graceUntil: null }, now)).toBe(true);
  });

  it('never expires FREE', () => {
    expect(isExpired({ plan: FREE, expiresAt: null, graceUntil: null }, now)).toBe(false);
    expect(isExpired({ plan: FREE, expiresAt: new Date(0), graceUntil: null }, now)).toBe(false);
  });

  it('copies plan data so a caller cannot change the catalogue', () => {
    const result = entitlementsAt(
      guildId,
      { id: 'l1', plan: PRO, expiresAt: new Date(now.getTime() + 1), graceUntil: null },
      FREE,
      now,
    );
    result.features.push('ANTINUKE_DETECT');
    result.restore_scopes.pop();
    result.limits.snapshot_manual_max = 99;
    expect(PRO.features).toHaveLength(2);
    expect(PRO.restore_scopes).toHaveLength(6);
    expect(PRO.limits.snapshot_manual_max).toBe(1);
  });
});
