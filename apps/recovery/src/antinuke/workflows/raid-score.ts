import type { DestructiveActionKind, IncidentAction } from '../destructive-action';
import type { Burst, BurstDetectorState, RaidScoreState } from './antinuke-contract';
import type { RecordOutcome } from './burst-detector';

/**
 * The long window: a raid paced to stay under the guild's threshold in its short window still
 * adds up to `LONG_WINDOW_FACTOR` times the threshold within it.
 */
export const LONG_WINDOW_MS = 10 * 60_000;
export const LONG_WINDOW_FACTOR = 3;

/** A destructive action as the score counts it: `at` in epoch milliseconds, weight at least one. */
export interface ScoredAction {
  kind: DestructiveActionKind;
  weight: number;
  actor_platform_user_id: string;
  audit_log_entry_id: string;
  at: number;
}

interface Counted {
  id: string;
  at: number;
  kind: DestructiveActionKind;
  weight: number;
}

interface ActorScore {
  /** Sorted by `at`; counted since the actor's last burst, within the long window behind the newest seen. */
  actions: Counted[];
  /** The open burst: its last action, and how long a quiet spell ends it (the window that found it). */
  burst: { lastAt: number; quietMs: number } | null;
}

/**
 * One score per actor across every kind: the weights of their actions within the guild's short
 * window (`threshold` in `window_seconds`, a score of `threshold` actions of weight one), and
 * within the long window (`LONG_WINDOW_FACTOR` x threshold in `LONG_WINDOW_MS`). Reaching either
 * makes a burst, which opens one incident; the actor's later actions belong to it until they stay
 * quiet for the window that found it. The actions that made a burst are not counted again.
 * Deterministic and plain: the guard owns one, and its state travels across continue-as-new as JSON.
 */
export class RaidScore {
  private latestAt: number;
  private readonly actors = new Map<string, ActorScore>();

  constructor(
    private settings: { threshold: number; window_seconds: number },
    state?: RaidScoreState | BurstDetectorState,
  ) {
    this.latestAt = state?.latest_at ?? 0;
    if (state && 'actors' in state && Array.isArray(state.actors)) {
      for (const entry of state.actors) {
        this.actors.set(entry.actor, {
          actions: entry.actions.map((action) => ({ ...action })),
          burst: entry.burst ? { lastAt: entry.burst.last_at, quietMs: entry.burst.quiet_ms } : null,
        });
      }
    } else if (state && 'windows' in state && Array.isArray(state.windows)) {
      this.takeOver(state);
    }
    this.prune();
  }

  /** New threshold or window; the actions already counted stay and are judged by the new ones. */
  configure(settings: { threshold: number; window_seconds: number }): void {
    this.settings = settings;
    this.prune();
  }

  record(action: ScoredAction): RecordOutcome {
    if (action.at <= this.latestAt - this.longMs) return { result: 'stale' };
    if (this.seen(action.audit_log_entry_id)) return { result: 'duplicate' };
    this.latestAt = Math.max(this.latestAt, action.at);
    this.prune();

    const actor = action.actor_platform_user_id;
    let score = this.actors.get(actor);
    if (!score) this.actors.set(actor, (score = { actions: [], burst: null }));
    if (score.burst) {
      score.burst.lastAt = Math.max(score.burst.lastAt, action.at);
      return { result: 'in_open_burst' };
    }
    insertSorted(score.actions, {
      id: action.audit_log_entry_id,
      at: action.at,
      kind: action.kind,
      weight: action.weight,
    });

    const short = heaviestRun(score.actions, this.shortMs);
    const long = heaviestRun(score.actions, this.longMs);
    let run: Counted[];
    let quietMs: number;
    if (weightOf(short) >= this.settings.threshold) {
      [run, quietMs] = [short, this.shortMs];
    } else if (weightOf(long) >= this.settings.threshold * LONG_WINDOW_FACTOR) {
      [run, quietMs] = [long, this.longMs];
    } else {
      return { result: 'counted' };
    }
    score.burst = { lastAt: Math.max(...score.actions.map((counted) => counted.at)), quietMs };
    score.actions = [];
    return { result: 'burst', burst: toBurst(actor, run) };
  }

  /** Drops everything counted: AntiNuke was switched off. */
  forgetAll(): void {
    this.actors.clear();
  }

  /** Drops what one actor did: they became exempt. */
  forgetActor(actor: string): void {
    this.actors.delete(actor);
  }

  /** Plain JSON, for continue-as-new. */
  state(): RaidScoreState {
    return {
      latest_at: this.latestAt,
      actors: [...this.actors.entries()].map(([actor, score]) => ({
        actor,
        actions: score.actions.map((action) => ({ ...action })),
        burst: score.burst ? { last_at: score.burst.lastAt, quiet_ms: score.burst.quietMs } : null,
      })),
    };
  }

  /** Actors with actions counted or an open burst. */
  get trackedActors(): number {
    return this.actors.size;
  }

  private get shortMs(): number {
    return this.settings.window_seconds * 1000;
  }

  /** Never shorter than the short window (a guild may set up to five minutes). */
  private get longMs(): number {
    return Math.max(LONG_WINDOW_MS, this.shortMs);
  }

  /**
   * The per-kind windows of a run from before weights: each action weighs one, and an actor with
   * an open burst of any kind keeps it open (their other actions belong to that raid).
   */
  private takeOver(state: BurstDetectorState): void {
    for (const window of state.windows) {
      const separator = window.key.indexOf('|');
      if (separator < 0) continue;
      const kind = window.key.slice(0, separator) as DestructiveActionKind;
      const actor = window.key.slice(separator + 1);
      let score = this.actors.get(actor);
      if (!score) this.actors.set(actor, (score = { actions: [], burst: null }));
      for (const action of window.actions) insertSorted(score.actions, { ...action, kind, weight: 1 });
      if (window.burst_last_at !== null) {
        const lastAt = Math.max(window.burst_last_at, score.burst?.lastAt ?? 0);
        score.burst = { lastAt, quietMs: this.shortMs };
      }
    }
    for (const score of this.actors.values()) if (score.burst) score.actions = [];
  }

  private seen(auditLogEntryId: string): boolean {
    for (const score of this.actors.values()) {
      if (score.actions.some((action) => action.id === auditLogEntryId)) return true;
    }
    return false;
  }

  /** Drops actions a long window behind the newest, bursts gone quiet, and actors left with neither. */
  private prune(): void {
    const horizon = this.latestAt - this.longMs;
    for (const [actor, score] of this.actors) {
      score.actions = score.actions.filter((action) => action.at > horizon);
      if (score.burst && score.burst.lastAt <= this.latestAt - score.burst.quietMs) score.burst = null;
      if (score.actions.length === 0 && !score.burst) this.actors.delete(actor);
    }
  }
}

/**
 * What an incident says the actor did: the kind that weighs more than half of the burst's score,
 * or `mixed`.
 */
export function dominantKind(actions: { kind: DestructiveActionKind; weight: number }[]): IncidentAction {
  const byKind = new Map<DestructiveActionKind, number>();
  for (const action of actions) byKind.set(action.kind, (byKind.get(action.kind) ?? 0) + action.weight);
  const total = weightOf(actions);
  for (const [kind, weight] of byKind) if (weight * 2 > total) return kind;
  return 'mixed';
}

function toBurst(actor: string, run: Counted[]): Burst {
  return {
    kind: dominantKind(run),
    actor_platform_user_id: actor,
    count: run.length,
    score: weightOf(run),
    audit_log_entry_ids: run.map((counted) => counted.id),
    first_at: run[0].at,
    last_at: run[run.length - 1].at,
  };
}

function weightOf(actions: { weight: number }[]): number {
  return actions.reduce((sum, action) => sum + action.weight, 0);
}

function insertSorted(actions: Counted[], action: Counted): void {
  let index = actions.length;
  while (index > 0 && actions[index - 1].at > action.at) index--;
  actions.splice(index, 0, action);
}

/** The actions (sorted by time) less than `windowMs` apart, first to last, that weigh the most. */
function heaviestRun(actions: Counted[], windowMs: number): Counted[] {
  let best: Counted[] = [];
  let bestWeight = 0;
  let start = 0;
  let weight = 0;
  for (let end = 0; end < actions.length; end++) {
    weight += actions[end].weight;
    while (actions[end].at - actions[start].at >= windowMs) weight -= actions[start++].weight;
    if (weight > bestWeight) [best, bestWeight] = [actions.slice(start, end + 1), weight];
  }
  return best;
}
