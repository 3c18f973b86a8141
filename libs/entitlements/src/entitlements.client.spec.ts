import { Logger } from '@nestjs/common';
import {
  DEFAULT_RESTORE_SCOPES,
  type Entitlements,
  type PlanDefinition,
  RESTORE_SCOPES,
  type RestoreScope,
} from '@lib/contracts';
import { generateInternalKeys, InternalTokenCodec } from '@lib/identity';
import { type DomainError, toProblem } from '@lib/problem-details';
import { answerJson, scriptedUpstreamForSuite } from '../../../test/support/scripted-upstream';
import { EntitlementsClient } from './entitlements.client';
import { EntitlementErrors } from './entitlements.errors';

const FREE_GUILD = '01a20182-0000-7000-8000-000000000001';
const PRO_GUILD = '01a20182-0000-7000-8000-000000000002';

function plan(
  code: PlanDefinition['code'],
  rank: number,
  name: string,
  features: PlanDefinition['features'],
  restoreScopes: readonly RestoreScope[],
): PlanDefinition {
  return {
    code,
    rank,
    name,
    price_krw: rank * 9900,
    features,
    restore_scopes: [...restoreScopes],
    limits: {
      snapshot_manual_max: rank,
      scheduled_snapshot_retention_days: null,
      audit_log_retention_days: 30,
      snapshot_image_bytes: 0,
    },
  };
}

/** The catalogue the migrations seed: restores from PRO on, with every scope. */
const CATALOGUE = [
  plan('FREE', 0, 'Free', [], []),
  plan('PRO', 1, 'Pro', ['RECOVERY_RESTORE', 'RECOVERY_SNAPSHOT_MANUAL'], RESTORE_SCOPES),
  plan('ENTERPRISE', 2, 'Enterprise', ['RECOVERY_RESTORE', 'ANTINUKE_DETECT'], RESTORE_SCOPES),
];

/** A catalogue where PRO restores only the default four: ENTERPRISE is the way to bans. */
const NARROW_PRO = [
  CATALOGUE[0],
  plan('PRO', 1, 'Pro', ['RECOVERY_RESTORE'], DEFAULT_RESTORE_SCOPES),
  CATALOGUE[2],
];

function entitlementsOf(guildId: string, definition: PlanDefinition): Entitlements {
  return {
    guild_id: guildId,
    license_id: null,
    plan_code: definition.code,
    licensed_plan_code: definition.code,
    status: 'active',
    features: definition.features,
    restore_scopes: definition.restore_scopes,
    limits: definition.limits,
    expires_at: null,
  };
}

describe(EntitlementsClient.name, () => {
  // The unreadable catalogue is logged on purpose here; the assertions say what matters.
  beforeAll(() => {
    Logger.overrideLogger(false);
  });
  const codec = InternalTokenCodec.fromKeySet('recovery', generateInternalKeys());
  /** What licensing answers: its catalogue (null: the catalogue route fails) and PRO_GUILD's plan. */
  let catalogue: PlanDefinition[] | null = CATALOGUE;
  let proPlan = CATALOGUE[1];
  const licensingUrl = scriptedUpstreamForSuite((req, _body, res) => {
    if (req.url === '/internal/v1/plans') {
      if (catalogue) answerJson(res, 200, catalogue);
      else answerJson(res, 503, { status: 503 });
    } else if (req.url === `/internal/v1/guilds/${FREE_GUILD}/entitlements`) {
      answerJson(res, 200, entitlementsOf(FREE_GUILD, CATALOGUE[0]));
    } else if (req.url === `/internal/v1/guilds/${PRO_GUILD}/entitlements`) {
      answerJson(res, 200, entitlementsOf(PRO_GUILD, proPlan));
    } else {
      answerJson(res, 404, { status: 404 });
    }
  });
  // A new client per test: neither the entitlements nor the catalogue of another test is cached.
  const client = () => new EntitlementsClient({ licensingUrl: licensingUrl(), codec });
  beforeEach(() => {
    catalogue = CATALOGUE;
    proPlan = CATALOGUE[1];
  });

  describe('requireFeature', () => {
    it('refuses a FREE guild a restore, naming the lowest plan that has restores', async () => {
      const refusal = client().requireFeature(FREE_GUILD, 'RECOVERY_RESTORE');
      await expect(refusal).rejects.toMatchObject({ title: EntitlementErrors.featureRequired.title });
      await expect(refusal).rejects.toMatchObject({
        code: 'ErrPermissionDenied',
        status: 403,
        message:
          "This needs RECOVERY_RESTORE, which the guild's FREE plan does not include. Upgrade to Pro to use it.",
        extensions: { required_feature: 'RECOVERY_RESTORE', plan_code: 'FREE', required_plan: 'PRO' },
      });
    });

    it('names the plan that has the feature, not merely the next one up', async () => {
      await expect(client().requireFeature(PRO_GUILD, 'ANTINUKE_DETECT')).rejects.toMatchObject({
        extensions: { required_feature: 'ANTINUKE_DETECT', plan_code: 'PRO', required_plan: 'ENTERPRISE' },
      });
    });

    it('still refuses with the 403, without a plan, when the catalogue cannot be read', async () => {
      catalogue = null;
      const refusal = client().requireFeature(FREE_GUILD, 'RECOVERY_RESTORE');
      await expect(refusal).rejects.toMatchObject({
        code: 'ErrPermissionDenied',
        status: 403,
        message:
          "This needs RECOVERY_RESTORE, which the guild's FREE plan does not include. Upgrade the plan to use it.",
      });
      const error = (await refusal.catch((caught: unknown) => caught)) as DomainError;
      expect(error.extensions).toEqual({ required_feature: 'RECOVERY_RESTORE', plan_code: 'FREE' });
    });

    it('answers the entitlements when the plan has the feature', async () => {
      await expect(client().requireFeature(PRO_GUILD, 'RECOVERY_RESTORE')).resolves.toMatchObject({
        plan_code: 'PRO',
      });
    });
  });

  describe('requireRestoreScopes', () => {
    it('lets PRO restore every scope, members’ roles and bans included', async () => {
      const entitlements = await client().requireRestoreScopes(PRO_GUILD, RESTORE_SCOPES);
      expect(entitlements.restore_scopes).toEqual([...RESTORE_SCOPES]);
    });

    it('refuses FREE for want of restores at all, before looking at scopes', async () => {
      await expect(client().requireRestoreScopes(FREE_GUILD, ['roles'])).rejects.toMatchObject({
        title: 'Your plan does not include this feature',
        extensions: { required_feature: 'RECOVERY_RESTORE', plan_code: 'FREE', required_plan: 'PRO' },
      });
    });

    it('refuses the scopes a plan lacks, naming them and the lowest plan that restores them all', async () => {
      catalogue = NARROW_PRO;
      proPlan = NARROW_PRO[1];
      const refusal = client().requireRestoreScopes(PRO_GUILD, ['roles', 'member_roles', 'bans']);
      await expect(refusal).rejects.toMatchObject({ title: EntitlementErrors.restoreScopesRequired.title });
      const error = (await refusal.catch((caught: unknown) => caught)) as DomainError;
      expect(toProblem(error, 'req-1')).toEqual({
        type: expect.stringContaining('ErrPermissionDenied'),
        title: 'Your plan does not include this restore scope',
        status: 403,
        code: 'ErrPermissionDenied',
        detail:
          "This restore puts back member_roles and bans, which the guild's PRO plan does not include. Upgrade to Enterprise to restore them.",
        missing_scopes: ['member_roles', 'bans'],
        plan_code: 'PRO',
        required_plan: 'ENTERPRISE',
        request_id: 'req-1',
      });
    });

    it('refuses without a plan when the catalogue cannot be read', async () => {
      catalogue = null;
      proPlan = NARROW_PRO[1];
      const error = (await client()
        .requireRestoreScopes(PRO_GUILD, ['bans'])
        .catch((caught: unknown) => caught)) as DomainError;
      expect(error.title).toBe(EntitlementErrors.restoreScopesRequired.title);
      expect(error.status).toBe(403);
      expect(error.message).toBe(
        "This restore puts back bans, which the guild's PRO plan does not include. Upgrade the plan to restore them.",
      );
      expect(error.extensions).toEqual({ missing_scopes: ['bans'], plan_code: 'PRO' });
    });
  });
});
