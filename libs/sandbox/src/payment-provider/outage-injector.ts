import { ProviderHttpError, providerError } from './provider-error';

export type OutageRoute = 'issue' | 'charge';

export interface ProviderOutage {
  route: OutageRoute;
  status: 500 | 502 | 503;
  /** How many requests to the route fail; default 1. */
  times?: number;
}

/** Outages a test arranges ahead: the provider answers `PROVIDER_ERROR` before doing anything. */
export class OutageInjector {
  private outages: { outage: ProviderOutage; remaining: number }[] = [];

  add(outage: ProviderOutage): void {
    const times = outage.times ?? 1;
    if (!(times > 0)) throw new Error(`failNext: times must be positive, got ${times}`);
    this.outages.push({ outage: { ...outage }, remaining: times });
  }

  take(route: OutageRoute): ProviderHttpError | undefined {
    const entry = this.outages.find(({ outage }) => outage.route === route);
    if (!entry) return undefined;
    entry.remaining--;
    if (entry.remaining <= 0) this.outages = this.outages.filter((candidate) => candidate !== entry);
    return providerError.outage(entry.outage.status);
  }

  clear(): void {
    this.outages = [];
  }
}
