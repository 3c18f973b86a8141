import type { ProviderEventOutcome, RoutedProviderEvent } from '@lib/contracts';
import { type InternalAnswer, InternalHttp, InternalHttpError, type InternalTokenCodec } from '@lib/identity';
import { currentRequestId } from '@lib/runtime';

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
const PROVIDER_EVENTS_PATH = '/internal/v1/provider-events';
/** Billing answers an outcome or a problem body, both small; anything longer is not billing. */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * docs/behaviour.md §4.9 step 4: verified events go to billing's `/internal/v1/provider-events`, through the
 * services' one internal client (InternalHttp: the service token reused for half its life, no
 * redirects followed, a deadline on the whole exchange, kept-alive connections), passing the request
 * id on. Every accepted delivery makes this call, which is why that client is plain `node:http`.
 */
export class BillingRouter {
  private readonly http: InternalHttp;

  constructor(billingUrl: string, codec: InternalTokenCodec, timeoutMs = 10_000) {
    this.http = new InternalHttp(billingUrl, codec, 'billing', timeoutMs, Date.now, {
      requestId: currentRequestId,
      maxAnswerBytes: MAX_ANSWER_BYTES,
    });
  }

  async route(event: RoutedProviderEvent): Promise<ProviderEventOutcome> {
    let answer: InternalAnswer;
    try {
      // Sent again once when it met a kept-alive connection billing had just closed: billing never
      // saw it, and applies an event once anyway.
      answer = await this.http.exchange('POST', PROVIDER_EVENTS_PATH, JSON.stringify(event), {
        resendOnStaleConnection: true,
      });
    } catch (error) {
      if (error instanceof InternalHttpError) throw new RoutingError(error.message);
      throw new RoutingError(`could not sign the internal token: ${String(error)}`);
    }
    const { status, data } = answer;
    const json = typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : null;
    if (status === 200 && typeof json?.outcome === 'string') return json as unknown as ProviderEventOutcome;
    const code = typeof json?.code === 'string' ? json.code : '';
    const detail = typeof json?.detail === 'string' ? json.detail : '';
    throw new RoutingError(
      `billing answered ${status} ${code} ${detail}`.trim().slice(0, 1_000),
      REFUSALS.has(status),
    );
  }
}
