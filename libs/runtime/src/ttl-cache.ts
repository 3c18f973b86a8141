interface Load<V> {
  promise: Promise<V>;
  /** Set by an invalidation during the load: the value may predate the change, so use it once, don't keep it. */
  stale: boolean;
}

/**
 * A small per-key cache with a lifetime, where concurrent misses for one key share one load
 * (a burst of requests for a guild costs one call to licensing, not one each).
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; storedAt: number }>();
  private readonly loads = new Map<string, Load<V>>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
    private readonly maxEntries = 10_000,
  ) {}

  /** The cached value unless older than the lifetime or refused by `stillValid`; else `load()`. */
  async get(key: string, load: () => Promise<V>, stillValid: (value: V) => boolean = () => true): Promise<V> {
    const entry = this.entries.get(key);
    if (entry && this.now() - entry.storedAt < this.ttlMs && stillValid(entry.value)) return entry.value;
    this.entries.delete(key);
    const running = this.loads.get(key);
    if (running) return running.promise;
    const current: Load<V> = {
      stale: false,
      promise: load()
        .then((value) => {
          if (!current.stale) this.store(key, value);
          return value;
        })
        .finally(() => {
          if (this.loads.get(key) === current) this.loads.delete(key);
        }),
    };
    this.loads.set(key, current);
    return current.promise;
  }

  invalidate(key: string): void {
    this.entries.delete(key);
    const running = this.loads.get(key);
    if (running) {
      running.stale = true;
      this.loads.delete(key);
    }
  }

  clear(): void {
    this.entries.clear();
    for (const running of this.loads.values()) running.stale = true;
    this.loads.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  private store(key: string, value: V): void {
    if (this.entries.size >= this.maxEntries) {
      // Maps iterate in insertion order: drop the oldest entry.
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, { value, storedAt: this.now() });
  }
}
