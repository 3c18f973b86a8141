import type { ProviderEventOutcome, RoutedProviderEvent } from '@lib/contracts';
import { InternalHttp, type InternalTokenCodec } from '@lib/identity';
import { isAxiosError } from 'axios';

/** Routing failed: the provider must resend (or an operator reprocess). */
export class RoutingError extends Error {
  /**
   * `refused`: billing answered that the event itself is wrong (400, 404, 422): no resend can
   * change that. Otherwise the failure may pass (billing down, busy, misconfigured credentials).
   */
  constructor(
    message: string,
    readonly refused = false,
  ) {
    super(message);
    this.name = 'RoutingError';
  }
}

const REFUSALS = new Set([400, 404, 422]);

/** Spec §4.9 step 4: verified events go to billing's `/internal/v1/provider-events`. */
export class BillingRouter {
  private readonly http: InternalHttp;

  constructor(billingUrl: string, codec: InternalTokenCodec, timeoutMs = 10_000) {
    this.http = new InternalHttp(billingUrl, codec, 'webhook-intake', timeoutMs);
  }

  async route(event: RoutedProviderEvent): Promise<ProviderEventOutcome> {
    try {
      return await this.http.post<ProviderEventOutcome>('/internal/v1/provider-events', event);
    } catch (error) {
      if (!isAxiosError<{ code?: unknown; detail?: unknown }>(error)) throw new RoutingError(String(error));
      const response = error.response;
      if (!response) throw new RoutingError(`billing did not answer (${error.code ?? 'network'})`);
      const code = typeof response.data?.code === 'string' ? response.data.code : '';
      const detail = typeof response.data?.detail === 'string' ? response.data.detail : '';
      throw new RoutingError(
        `billing answered ${response.status} ${code} ${detail}`.trim().slice(0, 1_000),
        REFUSALS.has(response.status),
      );
    }
  }
}
