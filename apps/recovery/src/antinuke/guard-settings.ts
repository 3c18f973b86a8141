/** How long what the owner alone may do freely waits for them when someone else does it. */
export interface GuardSettings {
  /** A change loosening AntiNuke by anyone but the owner applies this long after it was asked for. */
  looseningDelayMinutes: number;
  /** How often due pending changes are looked for. */
  pendingChangesIntervalMs: number;
  /** A deleted snapshot can be undone by the owner for this long; retention purges it after. */
  snapshotDeleteGraceDays: number;
}

export const GUARD_SETTINGS = Symbol('GUARD_SETTINGS');

export const DEFAULT_GUARD_SETTINGS: GuardSettings = {
  looseningDelayMinutes: 1_440,
  pendingChangesIntervalMs: 60_000,
  snapshotDeleteGraceDays: 7,
};
