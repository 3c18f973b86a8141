import { INTERNAL_TOKEN_HEADER, type ServiceName } from '@lib/contracts';
import axios, { type AxiosInstance, isAxiosError } from 'axios';
import { Agent } from 'node:http';
import { INTERNAL_TOKEN_TTL_SECONDS, type InternalTokenCodec } from './internal-token';

/**
 * A service token is reused for half its life: every call still carries at least 30 s of validity,
 * which covers the call and its retries, and a busy caller signs twice a minute instead of once per
 * request (signing was a tenth of the webhook intake's cost per request).
 */
const TOKEN_REUSE_MS = (INTERNAL_TOKEN_TTL_SECONDS * 1000) / 2;

/**
 * Calls another service's `/internal/...` routes as this service. Connections are kept alive and
 * redirects are not followed (an internal route never redirects; following one would carry the
 * token elsewhere). Failures are axios errors; each client decides what they mean to its caller.
 */
export class InternalHttp {
  private readonly http: AxiosInstance;
  private readonly tokens: ServiceTokens;

  /** `target` is the service at `baseUrl`: the only one that accepts the tokens sent to it. */
  constructor(
    baseUrl: string,
    codec: InternalTokenCodec,
    target: ServiceName,
    timeoutMs: number,
    now: () => number = Date.now,
  ) {
    this.tokens = new ServiceTokens(codec, target, now);
    this.http = axios.create({
      baseURL: baseUrl,
      timeout: timeoutMs,
      maxRedirects: 0,
      httpAgent: new Agent({ keepAlive: true }),
    });
  }

  async get<T>(path: string): Promise<T> {
    try {
      return (await this.http.get<T>(path, { headers: await this.headers() })).data;
    } catch (error) {
      // A kept-alive connection the service closed as idle just as the request went out on it: the
      // service never saw it (nodejs/node#43456). A read is sent again once.
      if (!isStaleConnection(error)) throw error;
      return (await this.http.get<T>(path, { headers: await this.headers() })).data;
    }
  }

  async post<T>(path: string, body: unknown): Promise<T> {
    const response = await this.http.post<T>(path, body, { headers: await this.headers() });
    return response.data;
  }

  private async headers(): Promise<Record<string, string>> {
    return { [INTERNAL_TOKEN_HEADER]: await this.tokens.current() };
  }
}

/**
 * This service's internal token for its calls to `target`, signed again once it has been reused half
 * its life.
 */
export class ServiceTokens {
  private token: { value: Promise<string>; renewAt: number } | null = null;

  constructor(
    private readonly codec: InternalTokenCodec,
    private readonly target: ServiceName,
    private readonly now: () => number = Date.now,
  ) {}

  current(): Promise<string> {
    const now = this.now();
    if (!this.token || now >= this.token.renewAt) {
      const value = this.codec.sign({ kind: 'service', service: this.codec.service }, this.target);
      this.token = { value, renewAt: now + TOKEN_REUSE_MS };
      // A failed signature must not be served to the next caller.
      value.catch(() => {
        if (this.token?.value === value) this.token = null;
      });
    }
    return this.token.value;
  }
}

function isStaleConnection(error: unknown): boolean {
  if (!isAxiosError(error) || error.code !== 'ECONNRESET') return false;
  return (error.request as { reusedSocket?: boolean } | undefined)?.reusedSocket === true;
}
