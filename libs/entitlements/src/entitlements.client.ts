import { Logger } from '@nestjs/common';
import type { Entitlements, PlanDefinition, PlanFeature, ReservedLicense } from '@lib/contracts';
import { InternalHttp, InternalHttpError, type InternalTokenCodec } from '@lib/identity';
import { TtlCache } from '@lib/runtime';
import { LicensingUnavailableError, PlanFeatureRequiredError } from './entitlements.errors';

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

  /** The entitlements, or ErrPermissionDenied (403, `required_feature`) when the plan lacks `feature`. */
  async requireFeature(guildId: string, feature: PlanFeature): Promise<Entitlements> {
    const entitlements = await this.get(guildId);
    if (!entitlements.features.includes(feature)) {
      throw new PlanFeatureRequiredError(feature, entitlements.plan_code);
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
      throw new LicensingUnavailableError();
    }
  }
}
