/**
 * Interaction ids this process has taken up, each for as long as its token lives (15 minutes):
 * a second delivery of the same interaction is answered but not run again. The platform documents
 * no redelivery; this guards against one, and against a replayed request within the signature's
 * allowed age. Per process: replicas behind a balancer each keep their own.
 */
export class InteractionClaims {
  private readonly expiries = new Map<string, number>();

  constructor(
    private readonly ttlMs: number,
    private readonly capacity: number,
  ) {}

  /** True the first time an id is claimed within its lifetime; false for a repeat. */
  claim(id: string, now: number): boolean {
    this.forgetExpired(now);
    const expiry = this.expiries.get(id);
    if (expiry !== undefined && expiry > now) return false;
    // At capacity the oldest claim goes: a flood of fresh ids cannot grow the map without bound.
    if (this.expiries.size >= this.capacity) {
      const oldest = this.expiries.keys().next().value;
      if (oldest !== undefined) this.expiries.delete(oldest);
    }
    this.expiries.set(id, now + this.ttlMs);
    return true;
  }

  /** Claims are kept in the order they were made, so the expired ones are at the front. */
  private forgetExpired(now: number): void {
    for (const [id, expiry] of this.expiries) {
      if (expiry > now) return;
      this.expiries.delete(id);
    }
  }
}
