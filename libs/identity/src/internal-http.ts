import { INTERNAL_TOKEN_HEADER, type InternalIdentity } from '@lib/contracts';
import axios, { type AxiosInstance } from 'axios';
import type { InternalTokenCodec } from './internal-token';

export type ServiceName = Extract<InternalIdentity, { kind: 'service' }>['service'];

/**
 * Calls another service's `/internal/...` routes as this service, with a fresh internal token on
 * each call. Failures are axios errors; each client decides what they mean to its caller.
 */
export class InternalHttp {
  private readonly http: AxiosInstance;

  constructor(
    baseUrl: string,
    private readonly codec: InternalTokenCodec,
    private readonly service: ServiceName,
    timeoutMs: number,
  ) {
    this.http = axios.create({ baseURL: baseUrl, timeout: timeoutMs });
  }

  async get<T>(path: string): Promise<T> {
    const response = await this.http.get<T>(path, { headers: await this.headers() });
    return response.data;
  }

  async post<T>(path: string, body: unknown): Promise<T> {
    const response = await this.http.post<T>(path, body, { headers: await this.headers() });
    return response.data;
  }

  private async headers(): Promise<Record<string, string>> {
    return { [INTERNAL_TOKEN_HEADER]: await this.codec.sign({ kind: 'service', service: this.service }) };
  }
}
