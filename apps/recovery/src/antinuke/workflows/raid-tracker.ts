import type { IncidentTarget, RaidTrackerState } from './antinuke-contract';

/**
 * The member actions of the last window kept for a burst detected next: a raid of bans is worth
 * undoing whole, but an incident must not drag a guild's whole moderation history into its state.
 */
export const MAX_RECENT_TARGETS = 1_000;
/** At most this many targets go to one recordIncidentTargets call (one activity's input). */
export const TARGETS_PER_BATCH = 500;

type RecentTarget = IncidentTarget & { actor: string };

interface Raid {
  actor: string;
  /** The actor's latest action (destructive, or to a member); the raid ends a quiet window after it. */
  lastAt: number;
  /** Bursts detected whose incident has no id yet: the raid stays until they have one. */
  pendingBursts: number;
  /** The raid's incidents, with what each has yet to record. */
  incidents: { id: string; unsent: IncidentTarget[] }[];
}

/**
 * What a raider does to members (bans, kicks, roles stripped), attached to their incidents so that
 * "undo this raid" can show and give it back. A burst opens the actor's raid; their
 * member actions of the window before it, and every one after until a whole window passes without
 * an action of theirs, are recorded on each incident the raid opened. Nothing here opens an
 * incident: that stays the burst detector's. Deterministic and plain, like BurstDetector: the
 * guard owns one, and its state travels across continue-as-new as JSON.
 */
export class RaidTracker {
  private latestAt = 0;
  private recent: RecentTarget[];
  private readonly raids = new Map<string, Raid>();

  constructor(
    private windowMs: number,
    state?: RaidTrackerState,
  ) {
    this.recent = (state?.recent ?? []).map((target) => ({ ...target }));
    for (const raid of state?.raids ?? []) {
      this.raids.set(raid.actor, {
        actor: raid.actor,
        lastAt: raid.last_at,
        pendingBursts: 0,
        incidents: raid.incident_ids.map((id) => ({ id, unsent: [] })),
      });
      this.latestAt = Math.max(this.latestAt, raid.last_at);
    }
    for (const target of this.recent) this.latestAt = Math.max(this.latestAt, target.at);
  }

  configure(windowSeconds: number): void {
    this.windowMs = windowSeconds * 1000;
    this.prune();
  }

  /** A destructive action of `actor`: their open raid stays open. */
  actionBy(actor: string, at: number): void {
    this.advance(at);
    const raid = this.raids.get(actor);
    if (raid) raid.lastAt = Math.max(raid.lastAt, at);
  }

  /**
   * What `actor` did to a member: kept for a window, and queued for every incident of their open
   * raid. The same entry (and role) twice is taken once.
   */
  memberAction(actor: string, target: IncidentTarget): void {
    if (target.at <= this.latestAt - this.windowMs) return;
    const key = targetKey(target);
    if (this.recent.some((seen) => seen.actor === actor && targetKey(seen) === key)) return;
    this.actionBy(actor, target.at);
    this.recent.push({ ...target, actor });
    if (this.recent.length > MAX_RECENT_TARGETS) this.recent.shift();
    const raid = this.raids.get(actor);
    for (const incident of raid?.incidents ?? []) incident.unsent.push({ ...target });
  }

  /** A burst of `actor`'s reached the threshold: their raid opens, or goes on. */
  burstDetected(actor: string, lastAt: number): void {
    let raid = this.raids.get(actor);
    if (!raid) this.raids.set(actor, (raid = { actor, lastAt, pendingBursts: 0, incidents: [] }));
    raid.lastAt = Math.max(raid.lastAt, lastAt);
    raid.pendingBursts += 1;
  }

  /**
   * The burst's incident has its id: from now on the actor's member actions are queued for it,
   * starting with those of the window before.
   */
  incidentStarting(actor: string, incidentId: string): void {
    let raid = this.raids.get(actor);
    if (!raid)
      this.raids.set(actor, (raid = { actor, lastAt: this.latestAt, pendingBursts: 1, incidents: [] }));
    raid.pendingBursts = Math.max(0, raid.pendingBursts - 1);
    const unsent = this.recent
      .filter((target) => target.actor === actor)
      .map(({ actor: _actor, ...target }) => target);
    raid.incidents.push({ id: incidentId, unsent });
  }

  /** Everything queued for the incident so far, taken (openIncident records it with the incident). */
  take(incidentId: string): IncidentTarget[] {
    for (const raid of this.raids.values()) {
      const incident = raid.incidents.find((candidate) => candidate.id === incidentId);
      if (incident) return incident.unsent.splice(0);
    }
    return [];
  }

  /** The incident was not recorded: nothing more is queued for it. */
  forgetIncident(incidentId: string): void {
    for (const raid of this.raids.values())
      raid.incidents = raid.incidents.filter((incident) => incident.id !== incidentId);
    this.prune();
  }

  /** The next batch to add to an incident already recorded, taken; undefined when none waits. */
  nextBatch(): { incidentId: string; targets: IncidentTarget[] } | undefined {
    for (const raid of this.raids.values()) {
      for (const incident of raid.incidents) {
        if (incident.unsent.length > 0)
          return { incidentId: incident.id, targets: incident.unsent.splice(0, TARGETS_PER_BATCH) };
      }
    }
    this.prune();
    return undefined;
  }

  /** Targets queued for incidents. */
  get pending(): number {
    let count = 0;
    for (const raid of this.raids.values())
      for (const incident of raid.incidents) count += incident.unsent.length;
    return count;
  }

  /** Drops everything: AntiNuke was switched off. */
  forgetAll(): void {
    this.raids.clear();
    this.recent = [];
  }

  /** Drops what one actor did: they became exempt. */
  forgetActor(actor: string): void {
    this.raids.delete(actor);
    this.recent = this.recent.filter((target) => target.actor !== actor);
  }

  /** Plain JSON for continue-as-new; the guard rolls over only once nothing is queued. */
  state(): RaidTrackerState {
    return {
      raids: [...this.raids.values()].map((raid) => ({
        actor: raid.actor,
        last_at: raid.lastAt,
        incident_ids: raid.incidents.map((incident) => incident.id),
      })),
      recent: this.recent.map((target) => ({ ...target })),
    };
  }

  private advance(at: number): void {
    if (at <= this.latestAt) return;
    this.latestAt = at;
    this.prune();
  }

  /** Forgets member actions a window behind, and raids gone quiet with nothing left to record. */
  private prune(): void {
    const horizon = this.latestAt - this.windowMs;
    this.recent = this.recent.filter((target) => target.at > horizon);
    for (const [actor, raid] of this.raids) {
      const busy = raid.pendingBursts > 0 || raid.incidents.some((incident) => incident.unsent.length > 0);
      if (!busy && raid.lastAt <= horizon) this.raids.delete(actor);
    }
  }
}

function targetKey(target: IncidentTarget): string {
  return `${target.audit_log_entry_id}|${target.role_id ?? ''}`;
}
