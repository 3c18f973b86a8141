/** Where an app's KeyValueStore is provided (see KeyValueModule). */
export const KEY_VALUE_STORE = Symbol('KEY_VALUE_STORE');

/**
 * Short-lived keys with an expiry: sessions, OAuth states, rate-limit counters, idempotency claims.
 * Redis in the distributed deployment, a Postgres table in standalone mode; callers cannot tell
 * which. Every operation is atomic on its own, and an expired key is absent to all of them.
 */
export interface KeyValueStore {
  /** Stores `value` under `key` for `ttlSeconds`, replacing any value and expiry it had. */
  set(key: string, value: string, ttlSeconds: number): Promise<void>;

  /** Stores `value` only when `key` is absent; true when this call stored it. */
  setIfAbsent(key: string, value: string, ttlSeconds: number): Promise<boolean>;

  get(key: string): Promise<string | null>;

  /** Reads and deletes `key` at once: of concurrent callers, one gets the value, the others null. */
  take(key: string): Promise<string | null>;

  delete(key: string): Promise<void>;

  /**
   * Adds one to the counter at `key` and returns the new count. A counter that is absent starts at
   * 1 and expires `ttlMs` later; later increments leave that expiry where it is (a fixed window).
   */
  increment(key: string, ttlMs: number): Promise<number>;

  /** Resolves when the store can serve requests (readiness checks). */
  ping(): Promise<void>;

  /** Releases what the store holds (a connection, a timer); not the caller's DataSource. */
  close(): Promise<void>;
}
