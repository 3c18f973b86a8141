import type { DestructiveActionKind } from '../destructive-action';
import type { Burst, BurstDetectorState } from './antinuke-contract';

/** A destructive action as the detector counts it: `at` in epoch milliseconds. */
export interface CountedAction {
  kind: DestructiveActionKind;
  actor_platform_user_id: string;
  audit_log_entry_id: string;
  at: number;
}

export type RecordOutcome =
  | { result: 'burst'; burst: Burst }
  /** Counted; no threshold reached. */
  | { result: 'counted' }
  /** Part of a burst that already opened an incident. */
  | { result: 'in_open_burst' }
  /** The same audit-log entry again. */
  | { result: 'duplicate' }
  /** Older than the window behind the newest action seen: it can be part of no current burst. */
  | { result: 'stale' };

interface KeyWindow {
  kind: DestructiveActionKind;
  actor: string;
  /** Sorted by `at`; only actions within the window behind the newest seen. */
  actions: { id: string; at: number }[];
  /** The last action of the burst that opened an incident; the burst ends after a quiet window. */
  burstLastAt: number | null;
}

/**
 * Sliding windows per (kind, actor): `threshold` actions of one kind by one actor less than
 * `window_seconds` apart make a burst. A burst opens one incident; later actions of the same
 * actor and kind belong to it until a whole window passes without one. Deterministic and plain:
 * the workflow owns one, and its state travels across continue-as-new as JSON.
 */
export class BurstDetector {
  private latestAt: number;
  private readonly windows = new Map<string, KeyWindow>();

  constructor(
    private settings: { threshold: number; window_seconds: number },
    state?: BurstDetectorState,
  ) {
    this.latestAt = state?.latest_at ?? 0;
    for (const entry of state?.windows ?? []) {
      const [kind, actor] = splitKey(entry.key);
      this.windows.set(entry.key, {
        kind,
        actor,
        actions: [...entry.actions],
        burstLastAt: entry.burst_last_at,
      });
    }
  }

  /** New threshold or window; the actions already counted stay and are judged by the new ones. */
  configure(settings: { threshold: number; window_seconds: number }): void {
    this.settings = settings;
    this.prune();
  }

  record(action: CountedAction): RecordOutcome {
    const windowMs = this.windowMs;
    if (action.at <= this.latestAt - windowMs) return { result: 'stale' };
    if (this.seen(action.audit_log_entry_id)) return { result: 'duplicate' };
    this.latestAt = Math.max(this.latestAt, action.at);
    this.prune();

    const key = windowKey(action.kind, action.actor_platform_user_id);
    let window = this.windows.get(key);
    if (!window) {
      window = { kind: action.kind, actor: action.actor_platform_user_id, actions: [], burstLastAt: null };
      this.windows.set(key, window);
    }
    insertSorted(window.actions, { id: action.audit_log_entry_id, at: action.at });
    if (window.burstLastAt !== null) {
      window.burstLastAt = Math.max(window.burstLastAt, action.at);
      return { result: 'in_open_burst' };
    }
    const burst = densestRun(window.actions, windowMs);
    if (burst.length < this.settings.threshold) return { result: 'counted' };
    window.burstLastAt = Math.max(...window.actions.map((counted) => counted.at));
    return {
      result: 'burst',
      burst: {
        kind: window.kind,
        actor_platform_user_id: window.actor,
        count: burst.length,
        audit_log_entry_ids: burst.map((counted) => counted.id),
        first_at: burst[0].at,
        last_at: burst[burst.length - 1].at,
      },
    };
  }

  /** Drops everything counted: AntiNuke was switched off. */
  forgetAll(): void {
    this.windows.clear();
  }

  /** Drops what one actor did: they became exempt. */
  forgetActor(actor: string): void {
    for (const [key, window] of this.windows) if (window.actor === actor) this.windows.delete(key);
  }

  /** Plain JSON of the windows, for continue-as-new. */
  state(): BurstDetectorState {
    return {
      latest_at: this.latestAt,
      windows: [...this.windows.entries()].map(([key, window]) => ({
        key,
        actions: window.actions.map((action) => ({ ...action })),
        burst_last_at: window.burstLastAt,
      })),
    };
  }

  /** (kind, actor) pairs with actions in the window or an open burst. */
  get trackedKeys(): number {
    return this.windows.size;
  }

  private get windowMs(): number {
    return this.settings.window_seconds * 1000;
  }

  private seen(auditLogEntryId: string): boolean {
    for (const window of this.windows.values()) {
      if (window.actions.some((action) => action.id === auditLogEntryId)) return true;
    }
    return false;
  }

  /** Drops what is a whole window behind the newest action: old actions, bursts gone quiet. */
  private prune(): void {
    const horizon = this.latestAt - this.windowMs;
    for (const [key, window] of this.windows) {
      window.actions = window.actions.filter((action) => action.at > horizon);
      if (window.burstLastAt !== null && window.burstLastAt <= horizon) window.burstLastAt = null;
      if (window.actions.length === 0 && window.burstLastAt === null) this.windows.delete(key);
    }
  }
}

function windowKey(kind: DestructiveActionKind, actor: string): string {
  return `${kind}|${actor}`;
}

function splitKey(key: string): [DestructiveActionKind, string] {
  const separator = key.indexOf('|');
  return [key.slice(0, separator) as DestructiveActionKind, key.slice(separator + 1)];
}

function insertSorted(actions: { id: string; at: number }[], action: { id: string; at: number }): void {
  let index = actions.length;
  while (index > 0 && actions[index - 1].at > action.at) index--;
  actions.splice(index, 0, action);
}

/** The most actions (sorted by time) that lie less than `windowMs` apart, first to last. */
function densestRun<T extends { at: number }>(actions: T[], windowMs: number): T[] {
  let best: T[] = [];
  let start = 0;
  for (let end = 0; end < actions.length; end++) {
    while (actions[end].at - actions[start].at >= windowMs) start++;
    if (end - start + 1 > best.length) best = actions.slice(start, end + 1);
  }
  return best;
}
