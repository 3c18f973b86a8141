import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import {
  DESTRUCTIVE_ACTION_KINDS,
  type DestructiveAction,
  type DestructiveActionKind,
  LEGACY_DESTRUCTIVE_ACTION_KINDS,
  type MemberRolesRemoved,
} from '../destructive-action';
import {
  ANTINUKE_SETTING_LIMITS,
  AUTO_ACTION_MODES,
  AUTO_LOCKDOWN_MINUTES,
  DEFAULT_ANTINUKE_SETTINGS,
  PLATFORM_USER_ID_PATTERN,
  type AntiNukeActivities,
  type AntiNukeEntitlements,
  type AntiNukeSettings,
  type AntiNukeWorkflowInput,
  type AntiNukeWorkflowResult,
  type AntiNukeWorkflowState,
  type AutoActionMode,
  type AutoActionOutcome,
  type Burst,
  type BurstDetectorState,
  type IncidentTarget,
  type RaidScoreState,
} from './antinuke-contract';
import { BurstDetector, type RecordOutcome } from './burst-detector';
import { RaidScore, type ScoredAction } from './raid-score';
import { RaidTracker } from './raid-tracker';

export interface AntiNukeLog {
  warn(message: string, fields: Record<string, unknown>): void;
  error(message: string, fields: Record<string, unknown>): void;
}

/** What the engine running a guard provides (Temporal's workflow, or the in-process runner). */
export interface AntiNukeEngine {
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

/** An action's weight as counted: a signalled one is checked, as a signal bypasses live sync's mapping. */
const MAX_ACTION_WEIGHT = 1_000;

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

/**
 * Waits for bursts and opens one incident for each, until detection is removed or the engine
 * wants a new run. Bursts detected before a downgrade still get their incident.
 */
export async function guardGuild(
  guard: AntiNukeGuard,
  engine: AntiNukeEngine,
): Promise<'detection_removed' | 'roll_over'> {
  for (;;) {
    await engine.waitUntil(() => guard.hasWork() || engine.shouldRollOver());
    for (let burst = guard.nextBurst(); burst; burst = guard.nextBurst()) {
      await handleIncident(guard, burst, engine);
      guard.incidentOpened();
    }
    for (let batch = guard.nextTargets(); batch; batch = guard.nextTargets()) {
      await recordTargets(guard, batch, engine);
    }
    if (!guard.detecting) return 'detection_removed';
    if (engine.shouldRollOver()) return 'roll_over';
  }
}

/**
 * Containment first, then the snapshot, then the incident and its event in one transaction, which
 * therefore say what really happened (snapshot id or error, what the quarantine took or why not).
 * The quarantine comes before the snapshot: the snapshot reads the whole guild and takes seconds,
 * and the raid goes on meanwhile, each second one more channel or member lost; taking the actor's
 * dangerous roles takes a few small calls and ends that. The snapshot then shows the guild after
 * the raid's last action, which is no worse than before (it was taken after the threshold anyway);
 * "undo this raid" restores from the state before the raid. The lockdown (when the owner opted
 * in) follows the quarantine: it stops newcomers, the quarantine stops the raider. Neither a failed
 * snapshot nor a failed containment stops the incident (docs/behaviour.md §7.4).
 *
 * A run started by code from before contained nothing first: it replays its own order (snapshot,
 * then removeActorRoles).
 */
async function handleIncident(guard: AntiNukeGuard, burst: Burst, engine: AntiNukeEngine): Promise<void> {
  const { guildId } = guard;
  const { activities } = engine;
  const incidentId = engine.newIncidentId();
  const openedAt = new Date(engine.now()).toISOString();
  guard.incidentStarting(burst, incidentId);

  let autoAction: AutoActionOutcome = { taken: false, error: null };
  if (guard.containsFirst && guard.autoActionOn()) {
    const outcome = await activities
      .quarantineActor({
        guildId,
        incidentId,
        actorPlatformUserId: burst.actor_platform_user_id,
        mode: guard.autoActionMode(),
      })
      .catch((error: unknown) => ({ taken: false, error: failureMessage(error), record: null }));
    autoAction = { taken: outcome.taken, error: outcome.error };
  }
  if (guard.containsFirst && guard.autoLockdownOn()) {
    await activities
      .startIncidentLockdown({ guildId, incidentId, minutes: AUTO_LOCKDOWN_MINUTES })
      .catch((error: unknown) => {
        engine.log.error('antinuke incident lockdown failed', {
          alert: 'antinuke_lockdown_failed',
          guild_id: guildId,
          incident_id: incidentId,
          error: failureMessage(error),
        });
      });
  }

  const snapshot = await activities.takeIncidentSnapshot({ guildId, incidentId }).then(
    ({ snapshotId }) => ({ snapshotId, error: null }),
    (error: unknown) => ({ snapshotId: null, error: failureMessage(error) }),
  );

  if (!guard.containsFirst && guard.autoActionOn()) {
    autoAction = await activities
      .removeActorRoles({
        guildId,
        incidentId,
        actorPlatformUserId: burst.actor_platform_user_id,
      })
      .catch((error: unknown) => ({ taken: false, error: failureMessage(error) }));
  }

  // What the actor did to members up to now (the burst's own bans, roles stripped meanwhile); what
  // they do while this activity runs is queued, and added once the incident exists.
  const targets = guard.targetsToOpenWith(incidentId);
  try {
    await activities.openIncident({
      incidentId,
      guildId,
      burst,
      snapshotId: snapshot.snapshotId,
      snapshotError: snapshot.error,
      autoActionTaken: autoAction.taken,
      autoActionError: autoAction.error,
      openedAt,
      ...(targets ? { targets } : {}),
    });
  } catch (error) {
    guard.incidentNotRecorded(incidentId);
    engine.log.error('antinuke incident could not be recorded', {
      alert: 'antinuke_incident_not_recorded',
      guild_id: guildId,
      incident_id: incidentId,
      error: failureMessage(error),
    });
  }
}

/** Adds targets to a recorded incident; a failure is logged and the batch given up, detection goes on. */
async function recordTargets(
  guard: AntiNukeGuard,
  batch: { incidentId: string; targets: IncidentTarget[] },
  engine: AntiNukeEngine,
): Promise<void> {
  try {
    await engine.activities.recordIncidentTargets({ guildId: guard.guildId, ...batch });
  } catch (error) {
    engine.log.error('antinuke incident targets could not be recorded', {
      alert: 'antinuke_incident_targets_not_recorded',
      guild_id: guard.guildId,
      incident_id: batch.incidentId,
      targets: batch.targets.length,
      error: failureMessage(error),
    });
  }
}

/** The member a ban or kick removed, as its incident records it; null for other kinds. */
function memberTarget(action: DestructiveAction, counted: ScoredAction): IncidentTarget | null {
  if (counted.kind !== 'member_ban' && counted.kind !== 'member_kick') return null;
  if (typeof action.target_id !== 'string' || action.target_id === '') return null;
  return {
    kind: counted.kind,
    target_user_id: action.target_id,
    role_id: null,
    role_name: null,
    audit_log_entry_id: counted.audit_log_entry_id,
    at: counted.at,
  };
}

/** One target per role taken, or null when the signal is not a valid removal of this guild. */
function roleTargets(guildId: string, removal: MemberRolesRemoved, now: number): IncidentTarget[] | null {
  const nonEmpty = (value: unknown): value is string => typeof value === 'string' && value !== '';
  if (
    typeof removal !== 'object' ||
    removal === null ||
    removal.guild_id !== guildId ||
    !nonEmpty(removal.actor_platform_user_id) ||
    !nonEmpty(removal.target_user_id) ||
    !nonEmpty(removal.audit_log_entry_id) ||
    !Array.isArray(removal.roles)
  ) {
    return null;
  }
  const at = platformTime(removal.at, now);
  return removal.roles
    .filter((role) => typeof role === 'object' && role !== null && nonEmpty(role.id))
    .map((role) => ({
      kind: 'member_role_remove',
      target_user_id: removal.target_user_id,
      role_id: role.id,
      role_name: typeof role.name === 'string' ? role.name : null,
      audit_log_entry_id: removal.audit_log_entry_id,
      at,
    }));
}

/**
 * The platform's time of an action; never later than now, so a skewed clock cannot make
 * everything else look stale.
 */
function platformTime(at: string, now: number): number {
  const parsed = Date.parse(at);
  return Number.isFinite(parsed) ? Math.min(parsed, now) : now;
}

/**
 * The action as the detector counts it, or null when it is not a valid action of this guild or
 * not of the kinds counted. A missing or invalid weight (a live sync from before weights) is one.
 * Live sync's immediate quarantine counts with it too, so both score an action alike.
 */
export function countedAction(
  guildId: string,
  action: DestructiveAction,
  now: number,
  kinds: readonly DestructiveActionKind[],
): ScoredAction | null {
  if (
    typeof action !== 'object' ||
    action === null ||
    action.guild_id !== guildId ||
    !(kinds as readonly string[]).includes(action.kind) ||
    typeof action.actor_platform_user_id !== 'string' ||
    action.actor_platform_user_id === '' ||
    typeof action.audit_log_entry_id !== 'string' ||
    action.audit_log_entry_id === ''
  ) {
    return null;
  }
  const weight = action.weight;
  return {
    kind: action.kind,
    weight:
      Number.isInteger(weight) && (weight as number) >= 1 ? Math.min(weight as number, MAX_ACTION_WEIGHT) : 1,
    actor_platform_user_id: action.actor_platform_user_id,
    audit_log_entry_id: action.audit_log_entry_id,
    at: platformTime(action.at, now),
  };
}

/**
 * A signalled setting, each field checked on its own: a bad or missing one keeps the current value
 * (a signal bypasses the API's validation; an old run's input lacks the newer fields).
 */
export function validSettings(
  next: Partial<AntiNukeSettings> | undefined,
  current: AntiNukeSettings,
): AntiNukeSettings {
  const inRange = (value: unknown, limits: { min: number; max: number }): value is number =>
    Number.isInteger(value) && (value as number) >= limits.min && (value as number) <= limits.max;
  const { threshold, window_seconds } = ANTINUKE_SETTING_LIMITS;
  return {
    enabled: typeof next?.enabled === 'boolean' ? next.enabled : current.enabled,
    exempt_user_ids: validExemptList(next?.exempt_user_ids) ?? [...current.exempt_user_ids],
    threshold: inRange(next?.threshold, threshold) ? next.threshold : current.threshold,
    window_seconds: inRange(next?.window_seconds, window_seconds)
      ? next.window_seconds
      : current.window_seconds,
    auto_action_enabled:
      typeof next?.auto_action_enabled === 'boolean' ? next.auto_action_enabled : current.auto_action_enabled,
    auto_action_mode: (AUTO_ACTION_MODES as readonly unknown[]).includes(next?.auto_action_mode)
      ? (next!.auto_action_mode as AutoActionMode)
      : (current.auto_action_mode ?? DEFAULT_ANTINUKE_SETTINGS.auto_action_mode),
    auto_lockdown_enabled:
      typeof next?.auto_lockdown_enabled === 'boolean'
        ? next.auto_lockdown_enabled
        : (current.auto_lockdown_enabled ?? DEFAULT_ANTINUKE_SETTINGS.auto_lockdown_enabled),
  };
}

function validExemptList(value: unknown): string[] | null {
  if (!Array.isArray(value) || value.length > ANTINUKE_SETTING_LIMITS.exempt_user_ids.max) return null;
  const ids = value.filter((id): id is string => typeof id === 'string' && PLATFORM_USER_ID_PATTERN.test(id));
  return ids.length === value.length ? [...new Set(ids)] : null;
}

/** An activity's failure as the incident records it: `Type: message` when it has a type. */
export function failureMessage(error: unknown): string {
  const cause = error instanceof ActivityFailure && error.cause ? error.cause : error;
  if (cause instanceof ApplicationFailure && cause.type) return `${cause.type}: ${cause.message}`;
  return cause instanceof Error ? cause.message : String(cause);
}
