import type { Schemas } from '../api/client';
import { won } from './money';
import {
  auditRetention,
  auditRetentionNote,
  imageQuota,
  paymentFor,
  restores,
  upgradeOutcome,
} from './plans';

type Plan = Schemas['PlanDefinition'];

const plan = (restoreScopes: Plan['restore_scopes']): Plan => ({
  code: 'PRO',
  rank: 1,
  name: 'Pro',
  price_krw: 9900,
  features: restoreScopes.length > 0 ? ['RECOVERY_RESTORE'] : [],
  restore_scopes: restoreScopes,
  limits: {
    snapshot_manual_max: 1,
    scheduled_snapshot_retention_days: 7,
    audit_log_retention_days: 90,
    snapshot_image_bytes: 0,
  },
});

describe(restores.name, () => {
  it('names everything a restore puts back, members’ roles and bans included', () => {
    expect(
      restores(plan(['bans', 'member_roles', 'guild_settings', 'permission_overrides', 'channels', 'roles'])),
    ).toBe('Restores roles, channels, permission overwrites, server settings, members’ roles and bans');
  });

  it('lists only the scopes the plan has, in page order', () => {
    expect(restores(plan(['channels', 'roles']))).toBe('Restores roles and channels');
    expect(restores(plan(['bans']))).toBe('Restores bans');
    expect(restores(plan(['automod', 'emojis']))).toBe('Restores custom emojis and AutoMod rules');
    expect(restores(plan(['webhooks', 'automod']))).toBe('Restores AutoMod rules and webhooks');
  });

  it('says so when the plan has no restores', () => {
    expect(restores(plan([]))).toBe('No restores');
  });
});

describe(imageQuota.name, () => {
  it('says how many bytes of images the plan keeps, or that it keeps none', () => {
    const withQuota = (bytes: number) => ({ limits: { ...plan([]).limits, snapshot_image_bytes: bytes } });
    expect(imageQuota(withQuota(0))).toBe('No emoji, sticker or server images kept');
    expect(imageQuota(withQuota(100 * 1024 ** 2))).toBe(
      'Up to 100 MiB of emoji, sticker and server images kept',
    );
    expect(imageQuota(withQuota(1024 ** 3))).toBe('Up to 1 GiB of emoji, sticker and server images kept');
  });
});

describe(auditRetention.name, () => {
  it('says how long the plan keeps the audit log', () => {
    expect(auditRetention(plan([]))).toBe('Audit log kept 90 days');
    expect(auditRetentionNote(30, 'Free')).toBe(
      'Entries are kept 30 days on the Free plan; older ones are deleted.',
    );
    expect(auditRetentionNote(1, 'Pro')).toBe(
      'Entries are kept 1 day on the Pro plan; older ones are deleted.',
    );
  });
});

describe(paymentFor.name, () => {
  const plans = [plan([]), { ...plan([]), code: 'ENTERPRISE' as const, rank: 2, name: 'Enterprise' }];

  it('names an upgrade charge as the prorated upgrade, and a cycle charge by its month', () => {
    expect(paymentFor(plans, { purpose: 'upgrade', plan: 'ENTERPRISE', cycle: 1 })).toBe(
      'Upgrade to Enterprise (prorated)',
    );
    expect(paymentFor(plans, { purpose: 'period', plan: 'PRO', cycle: 3 })).toBe('Pro, month 3');
  });

  it('says the outcome of an upgrade, paid or still processing', () => {
    expect(upgradeOutcome(plans, { plan: 'ENTERPRISE', amount_krw: 13_334, status: 'succeeded' })).toBe(
      `Upgraded to Enterprise: ${won(13_334)} charged for the rest of this period.`,
    );
    expect(upgradeOutcome(plans, { plan: 'ENTERPRISE', amount_krw: 100, status: 'pending' })).toContain(
      `The payment of ${won(100)} for Enterprise is being processed`,
    );
  });
});
