import { Logger } from '@nestjs/common';
import type {
  Entitlements,
  PlanDefinition,
  PlanFeature,
  ReservedLicense,
  RestoreScope,
} from '@lib/contracts';
import { InternalHttp, InternalHttpError, type InternalTokenCodec } from '@lib/identity';
import { TtlCache } from '@lib/runtime';
import { EntitlementErrors } from './entitlements.errors';
import { lowestPlanWhere, missingRestoreScopes, type RequiredPlan } from './plan-requirements';

/** docs/behaviour.md §8: permission cache lifetime. */
export const ENTITLEMENTS_CACHE_TTL_MS = 60_000;

export interface EntitlementsClientOptions {
  /** Base URL of the licensing service, e.g. http://licensing:3003 */
  licensingUrl: string;
  codec: InternalTokenCodec;
  ttlMs?: number;
  timeoutMs?: number;
  now?: () => number;
}

/**
 * How recovery and billing ask "may this guild do X, and how much of it?". Answers are cached for
 * 60 s and dropped earlier when licensing announces a change (see EntitlementsInvalidationListener)
 * or when a cached paid licence reaches its `expires_at`: expiry applies at once, never a minute late.
 */
export class EntitlementsClient {
  private readonly logger = new Logger(EntitlementsClient.name);
  private readonly http: InternalHttp;
  private readonly cache: TtlCache<Entitlements>;
  private readonly planCache: TtlCache<PlanDefinition[]>;
  private readonly now: () => number;

  constructor(options: EntitlementsClientOptions) {
    this.now = options.now ?? Date.now;
    this.cache = new TtlCache(options.ttlMs ?? ENTITLEMENTS_CACHE_TTL_MS, this.now);
    this.planCache = new TtlCache(options.ttlMs ?? ENTITLEMENTS_CACHE_TTL_MS, this.now);
    this.http = new InternalHttp(
      options.licensingUrl,
      options.codec,
      'licensing',
      options.timeoutMs ?? 5_000,
    );
  }

  get(guildId: string): Promise<Entitlements> {
    return this.cache.get(
      guildId,
      () => this.fetch<Entitlements>(`/internal/v1/guilds/${encodeURIComponent(guildId)}/entitlements`),
      (cached) => this.stillInForce(cached),
    );
  }

  /**
   * The entitlements, or ErrPermissionDenied (403, `required_feature`, and `required_plan`: the lowest
   * plan that has it) when the plan lacks `feature`.
   */
  async requireFeature(guildId: string, feature: PlanFeature): Promise<Entitlements> {
    const entitlements = await this.get(guildId);
    if (!entitlements.features.includes(feature)) {
      const requiredPlan = await this.lowestPlanWhere((plan) => plan.features.includes(feature));
      throw EntitlementErrors.featureRequired(feature, entitlements.plan_code, requiredPlan);
    }
    return entitlements;
  }

  /**
   * The entitlements when the plan includes restores and every one of `scopes`; else
   * ErrPermissionDenied: as `requireFeature` without RECOVERY_RESTORE, or with `missing_scopes` and
   * `required_plan` (the lowest plan that restores all of `scopes`) when only scopes are missing.
   */
  async requireRestoreScopes(guildId: string, scopes: readonly RestoreScope[]): Promise<Entitlements> {
    const entitlements = await this.requireFeature(guildId, 'RECOVERY_RESTORE');
    const missing = missingRestoreScopes(entitlements, scopes);
    if (missing.length > 0) {
      const requiredPlan = await this.lowestPlanWhere(
        (plan) =>
          plan.features.includes('RECOVERY_RESTORE') &&
          scopes.every((scope) => plan.restore_scopes.includes(scope)),
      );
      throw EntitlementErrors.restoreScopesRequired(missing, entitlements.plan_code, requiredPlan);
    }
    return entitlements;
  }

  /** The plan catalogue (prices, features, limits), in rank order. */
  plans(): Promise<PlanDefinition[]> {
    return this.planCache.get('all', () => this.fetch<PlanDefinition[]>('/internal/v1/plans'));
  }

  /**
   * The guild's licence id, its FREE licence created if it has none (billing only): billing names
   * the licence in its events from the first one on (docs/behaviour.md §6). Licences are updated in place, never
   * replaced, so the id a subscription stores stays right.
   */
  async reserveLicense(guildId: string): Promise<string> {
    const path = `/internal/v1/guilds/${encodeURIComponent(guildId)}/license`;
    const reserved = await this.call(path, () => this.http.post<ReservedLicense>(path, {}));
    return reserved.license_id;
  }

  invalidate(guildId: string): void {
    this.cache.invalidate(guildId);
  }

  /**
   * The plan a refusal names, from the cached catalogue. Only advice: when the catalogue cannot be
   * read the caller still refuses with its 403, without a plan, rather than turning a plain "your
   * plan lacks this" into a 503.
   */
  private async lowestPlanWhere(
    covers: (plan: PlanDefinition) => boolean,
  ): Promise<RequiredPlan | undefined> {
    try {
      const plan = lowestPlanWhere(await this.plans(), covers);
      return plan && { code: plan.code, name: plan.name };
    } catch (error) {
      this.logger.warn(
        { err: String(error) },
        'the plan catalogue could not be read; refusing without a plan',
      );
      return undefined;
    }
  }

  /** A cached active paid licence stops being served the moment its period ends. */
  private stillInForce(cached: Entitlements): boolean {
    return (
      cached.status !== 'active' || cached.expires_at === null || Date.parse(cached.expires_at) > this.now()
    );
  }

  private fetch<T>(path: string): Promise<T> {
    return this.call(path, () => this.http.get<T>(path));
  }

  private async call<T>(path: string, request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      const status = error instanceof InternalHttpError ? error.response?.status : undefined;
      if (status !== undefined && status < 500) {
        // A 4xx here is our bug (bad id, bad token), not an outage: say so loudly.
        throw new Error(`licensing refused ${path} with ${status}`, { cause: error });
      }
      this.logger.warn({ path, status, err: String(error) }, 'licensing did not answer');
      throw EntitlementErrors.licensingUnavailable();
    }
  }
}
