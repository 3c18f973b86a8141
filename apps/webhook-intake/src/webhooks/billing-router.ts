import {
  INTERNAL_TOKEN_HEADER,
  type ProviderEventOutcome,
  REQUEST_ID_HEADER,
  type RoutedProviderEvent,
} from '@lib/contracts';
import { type InternalTokenCodec, ServiceTokens } from '@lib/identity';
import { currentRequestId } from '@lib/runtime';
import { Agent, type IncomingMessage, request } from 'node:http';

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
 * Spec §4.9 step 4: verified events go to billing's `/internal/v1/provider-events`.
 *
 * Every accepted delivery makes this call, so it is a plain `node:http` request on a kept-alive
 * connection rather than an axios one (InternalHttp): axios's per-request configuration merging and
 * adapter were about a seventh of the intake's CPU per request in `npm run bench:webhook`'s profile.
 * What InternalHttp gives its callers is kept: the service token reused for half its life, no
 * redirects followed, a deadline on the whole exchange. It also passes the request id on.
 */
export class BillingRouter {
  private readonly url: URL;
  private readonly agent = new Agent({ keepAlive: true });
  private readonly tokens: ServiceTokens;

  constructor(
    billingUrl: string,
    codec: InternalTokenCodec,
    private readonly timeoutMs = 10_000,
  ) {
    // Appended, as a base URL's path is kept (`http://billing/base` + the route).
    this.url = new URL(`${billingUrl.replace(/\/+$/, '')}${PROVIDER_EVENTS_PATH}`);
    this.tokens = new ServiceTokens(codec, 'billing');
  }

  async route(event: RoutedProviderEvent): Promise<ProviderEventOutcome> {
    const body = JSON.stringify(event);
    const token = await this.tokens.current().catch((error: unknown) => {
      throw new RoutingError(`could not sign the internal token: ${String(error)}`);
    });
    let answer: { status: number; text: string };
    try {
      answer = await this.post(body, token);
    } catch (error) {
      // A kept-alive connection billing closed as idle just as the request went out on it: billing
      // never saw it (nodejs/node#43456). Sent again once; billing applies an event once anyway.
      if (!(error as StaleConnection).stale) throw error;
      answer = await this.post(body, token);
    }
    const { status, text } = answer;
    const json = parseJson(text);
    if (status === 200 && typeof json?.outcome === 'string') return json as unknown as ProviderEventOutcome;
    const code = typeof json?.code === 'string' ? json.code : '';
    const detail = typeof json?.detail === 'string' ? json.detail : '';
    throw new RoutingError(
      `billing answered ${status} ${code} ${detail}`.trim().slice(0, 1_000),
      REFUSALS.has(status),
    );
  }

  private post(body: string, token: string): Promise<{ status: number; text: string }> {
    return new Promise((resolve, reject) => {
      const requestId = currentRequestId();
      let timedOut = false;
      const fail = (error: Error): void => {
        clearTimeout(deadline);
        if (timedOut) return reject(new RoutingError(`billing did not answer within ${this.timeoutMs} ms`));
        if (error instanceof RoutingError) return reject(error);
        const code = (error as NodeJS.ErrnoException).code;
        const failure: RoutingError & StaleConnection = new RoutingError(
          `billing did not answer (${code ?? error.message})`,
        );
        failure.stale = code === 'ECONNRESET' && req.reusedSocket;
        reject(failure);
      };
      const req = request(
        this.url,
        {
          method: 'POST',
          agent: this.agent,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            [INTERNAL_TOKEN_HEADER]: token,
            ...(requestId ? { [REQUEST_ID_HEADER]: requestId } : {}),
          },
        },
        (res) => {
          readAnswer(res).then((text) => {
            clearTimeout(deadline);
            resolve({ status: res.statusCode ?? 0, text });
          }, fail);
        },
      );
      const deadline = setTimeout(() => {
        timedOut = true;
        req.destroy();
      }, this.timeoutMs);
      req.once('error', fail);
      req.end(body);
    });
  }
}

interface StaleConnection {
  stale?: boolean;
}

function readAnswer(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_ANSWER_BYTES) res.destroy(new RoutingError('billing answered more than 64 KiB'));
      else chunks.push(chunk);
    });
    res.once('error', reject);
    res.once('end', () => resolve(Buffer.concat(chunks, size).toString('utf8')));
  });
}

function parseJson(text: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
