import {
  DESTRUCTIVE_ACTION_KINDS,
  type DestructiveAction,
  LEGACY_DESTRUCTIVE_ACTION_KINDS,
  type MemberRolesRemoved,
} from '../destructive-action';
import {
  DEFAULT_ANTINUKE_SETTINGS,
  type AntiNukeActivities,
  type AntiNukeEntitlements,
  type AntiNukeSettings,
  type AntiNukeWorkflowInput,
  type AntiNukeWorkflowResult,
  type AntiNukeWorkflowState,
  type AutoActionMode,
  type Burst,
  type BurstDetectorState,
  type IncidentTarget,
  type RaidScoreState,
} from './antinuke-contract';
import { BurstDetector, type RecordOutcome } from './burst-detector';
import { RaidScore, type ScoredAction } from './raid-score';
import { RaidTracker } from './raid-tracker';
import { countedAction, memberTarget, roleTargets, validSettings } from './signal-checks';

export interface AntiNukeLog {
  warn(message: string, fields: Record<string, unknown>): void;
  error(message: string, fields: Record<string, unknown>): void;
}

/** What the engine running a guard provides (Temporal's workflow, or the in-process runner). */
export interface AntiNukeRunHost {
  /** Each with its policy from antinuke-policy.ts. */
  activities: AntiNukeActivities;
  /** Resolves once `condition` holds; the engine looks again after every signal. */
  waitUntil(condition: () => boolean): Promise<void>;
  /** This run should hand over to a new one (Temporal's continue-as-new). */
  shouldRollOver(): boolean;
  now(): number;
  /** A UUID v7 for a new incident (the same on a replay). */
  newIncidentId(): string;
  log: AntiNukeLog;
}

export interface AntiNukeGuardOptions {
  /**
   * Record what raiders do to members on their incidents. False only for a Temporal run
   * started by code from before: its history has no such activity to replay.
   */
  recordsTargets: boolean;
  /**
   * One weighted score per actor across kinds, short and long window (RaidScore). False only for
   * a Temporal run started by code from before: it replays with the per-kind BurstDetector, the
   * four kinds it counted, and so opens exactly the incidents its history holds.
   */
  scoresActions: boolean;
  /**
   * Contain first: quarantine the actor before the snapshot, and lock the guild down when opted in.
   * False only for a Temporal run started by code from before: its history has the snapshot first
   * and removeActorRoles after it.
   */
  containsFirst?: boolean;
}

/** What counts actions: RaidScore, or BurstDetector in a run from before weights. */
interface Detector {
  record(action: ScoredAction): RecordOutcome;
  configure(settings: { threshold: number; window_seconds: number }): void;
  forgetAll(): void;
  forgetActor(actor: string): void;
  state(): BurstDetectorState | RaidScoreState;
}

/**
 * One guild's AntiNuke state (docs/decisions/antinuke.md), as plain deterministic code: the
 * settings and plan it runs with, the burst detector, and the bursts waiting for their incident.
 * The engine delivers its signals to the methods; guardGuild() works off the bursts.
 */
export class AntiNukeGuard {
  private settings: AntiNukeSettings;
  private entitlements: AntiNukeEntitlements;
  private readonly detector: Detector;
  private readonly raids: RaidTracker;
  private readonly pending: Burst[] = [];
  private incidentsOpened: number;
  private signals = 0;
  private actions = 0;
  private actionsIgnored = 0;

  constructor(
    private readonly input: AntiNukeWorkflowInput,
    private readonly log: AntiNukeLog,
    private readonly options: AntiNukeGuardOptions = {
      recordsTargets: true,
      scoresActions: true,
      containsFirst: true,
    },
  ) {
    // A run started before the switch and the exempt list existed carries neither: the defaults.
    this.settings = validSettings(input.settings, DEFAULT_ANTINUKE_SETTINGS);
    this.entitlements = { ...input.entitlements };
    const carried = input.carried?.detector;
    this.detector = options.scoresActions
      ? new RaidScore(this.settings, carried)
      : new BurstDetector(this.settings, carried && 'windows' in carried ? carried : undefined);
    this.raids = new RaidTracker(this.settings.window_seconds * 1000, input.carried?.raids);
    this.incidentsOpened = input.carried?.incidents_opened ?? 0;
  }

  get guildId(): string {
    return this.input.guildId;
  }

  /** Signals handled by this run, the continue-as-new measure. */
  get signalsThisRun(): number {
    return this.signals;
  }

  get detecting(): boolean {
    return this.entitlements.detect;
  }

  /**
   * Bursts wait for their incident, targets for theirs, or detection was removed: guardGuild has
   * something to do.
   */
  hasWork(): boolean {
    return this.pending.length > 0 || this.raids.pending > 0 || !this.entitlements.detect;
  }

  /**
   * Signal `destructiveAction`; `now` is the engine's clock. Not counted while the owner has
   * switched AntiNuke off, nor when an exempt user did it (docs/behaviour.md §1.6).
   */
  destructiveAction(action: DestructiveAction, now: number): void {
    this.signals++;
    this.actions++;
    if (!this.entitlements.detect) return;
    if (!this.settings.enabled) {
      this.actionsIgnored++;
      return;
    }
    const kinds = this.options.scoresActions ? DESTRUCTIVE_ACTION_KINDS : LEGACY_DESTRUCTIVE_ACTION_KINDS;
    const counted = countedAction(this.input.guildId, action, now, kinds);
    if (!counted) {
      this.log.warn('destructive action ignored: not one of this guild', { guild_id: this.input.guildId });
      return;
    }
    if (this.settings.exempt_user_ids.includes(counted.actor_platform_user_id)) {
      this.actionsIgnored++;
      return;
    }
    const outcome = this.detector.record(counted);
    if (!this.options.recordsTargets) {
      if (outcome.result === 'burst') this.pending.push(outcome.burst);
      return;
    }
    if (outcome.result === 'duplicate' || outcome.result === 'stale') return;
    const actor = counted.actor_platform_user_id;
    this.raids.actionBy(actor, counted.at);
    const target = memberTarget(action, counted);
    if (target) this.raids.memberAction(actor, target);
    if (outcome.result === 'burst') {
      this.raids.burstDetected(actor, outcome.burst.last_at);
      this.pending.push(outcome.burst);
    }
  }

  /**
   * Signal `memberRolesRemoved`: never counted towards a burst; recorded on the actor's incident
   * while their raid is open. Ignored as destructive actions are (switched off, exempt actor).
   */
  memberRolesRemoved(removal: MemberRolesRemoved, now: number): void {
    this.signals++;
    if (!this.options.recordsTargets || !this.entitlements.detect || !this.settings.enabled) return;
    const targets = roleTargets(this.input.guildId, removal, now);
    if (!targets) {
      this.log.warn('role removal ignored: not one of this guild', { guild_id: this.input.guildId });
      return;
    }
    if (this.settings.exempt_user_ids.includes(removal.actor_platform_user_id)) return;
    for (const target of targets) this.raids.memberAction(removal.actor_platform_user_id, target);
  }

  /** Signal `settingsChanged`. */
  changeSettings(next: AntiNukeSettings): void {
    this.signals++;
    this.settings = validSettings(next, this.settings);
    if (!this.entitlements.auto_action_allowed) {
      this.settings.auto_action_enabled = false;
      this.settings.auto_lockdown_enabled = false;
    }
    this.detector.configure(this.settings);
    this.raids.configure(this.settings.window_seconds);
    // Switched off, nothing counted so far survives: switched on again, counting starts afresh.
    // A newly exempt user's counted actions go too, so they cannot complete a burst later.
    if (!this.settings.enabled) {
      this.detector.forgetAll();
      this.raids.forgetAll();
    } else {
      for (const actor of this.settings.exempt_user_ids) {
        this.detector.forgetActor(actor);
        this.raids.forgetActor(actor);
      }
    }
  }

  /** Signal `entitlementsChanged`. */
  changeEntitlements(next: AntiNukeEntitlements): void {
    this.signals++;
    this.entitlements = {
      detect: next.detect === true,
      auto_action_allowed: next.auto_action_allowed === true,
    };
    // docs/behaviour.md appendix rule 7: losing auto-action switches it off; a later upgrade does not turn it back on.
    if (!this.entitlements.auto_action_allowed)
      this.settings = { ...this.settings, auto_action_enabled: false, auto_lockdown_enabled: false };
  }

  /** The `getState` query. */
  state(): AntiNukeWorkflowState {
    return {
      settings: this.settings,
      entitlements: this.entitlements,
      signals_this_run: this.signals,
      actions_this_run: this.actions,
      actions_ignored_this_run: this.actionsIgnored,
      incidents_opened: this.incidentsOpened,
      incidents_pending: this.pending.length,
      targets_pending: this.raids.pending,
    };
  }

  /** The next run's input: windows and counters carried over. */
  continuation(): AntiNukeWorkflowInput {
    return {
      guildId: this.input.guildId,
      settings: this.settings,
      entitlements: this.entitlements,
      carried: {
        detector: this.detector.state(),
        incidents_opened: this.incidentsOpened,
        raids: this.raids.state(),
      },
      signalsPerRun: this.input.signalsPerRun,
    };
  }

  result(): AntiNukeWorkflowResult {
    return { ended: 'detection_removed', incidents_opened: this.incidentsOpened };
  }

  nextBurst(): Burst | undefined {
    return this.pending.shift();
  }

  autoActionOn(): boolean {
    return this.settings.auto_action_enabled && this.entitlements.auto_action_allowed;
  }

  autoActionMode(): AutoActionMode {
    return this.settings.auto_action_mode;
  }

  /** The owner opted in to a lockdown on each incident, and the plan allows it. */
  autoLockdownOn(): boolean {
    return this.settings.auto_lockdown_enabled && this.entitlements.auto_action_allowed;
  }

  get containsFirst(): boolean {
    return this.options.containsFirst === true;
  }

  incidentOpened(): void {
    this.incidentsOpened++;
  }

  /** The burst's incident has its id: the actor's member actions are queued for it from now on. */
  incidentStarting(burst: Burst, incidentId: string): void {
    if (this.options.recordsTargets) this.raids.incidentStarting(burst.actor_platform_user_id, incidentId);
  }

  /** What openIncident records with the incident; undefined for a run that records none. */
  targetsToOpenWith(incidentId: string): IncidentTarget[] | undefined {
    return this.options.recordsTargets ? this.raids.take(incidentId) : undefined;
  }

  incidentNotRecorded(incidentId: string): void {
    this.raids.forgetIncident(incidentId);
  }

  /** The next batch of targets for an incident already recorded. */
  nextTargets(): { incidentId: string; targets: IncidentTarget[] } | undefined {
    return this.raids.nextBatch();
  }
}
