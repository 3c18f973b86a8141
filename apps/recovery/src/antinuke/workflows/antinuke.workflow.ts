import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  log,
  proxyActivities,
  setHandler,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import { DESTRUCTIVE_ACTION_KINDS, type DestructiveAction } from '../destructive-action';
import {
  ANTINUKE_SETTING_LIMITS,
  ANTINUKE_STATE_QUERY,
  type AntiNukeActivities,
  type AntiNukeEntitlements,
  type AntiNukeSettings,
  type AntiNukeWorkflowInput,
  type AntiNukeWorkflowResult,
  type AntiNukeWorkflowState,
  type AutoActionOutcome,
  type Burst,
  DESTRUCTIVE_ACTION_SIGNAL,
  ENTITLEMENTS_CHANGED_SIGNAL,
  SETTINGS_CHANGED_SIGNAL,
} from './antinuke-contract';
import {
  AUTO_ACTION_OPTIONS,
  INCIDENT_SNAPSHOT_OPTIONS,
  MAX_HISTORY_EVENTS,
  OPEN_INCIDENT_OPTIONS,
  SIGNALS_PER_RUN,
} from './antinuke-policy';
import { BurstDetector, type CountedAction } from './burst-detector';
import { incidentIdFrom } from './incident-id';

export const destructiveActionSignal = defineSignal<[DestructiveAction]>(DESTRUCTIVE_ACTION_SIGNAL);
export const settingsChangedSignal = defineSignal<[AntiNukeSettings]>(SETTINGS_CHANGED_SIGNAL);
export const entitlementsChangedSignal = defineSignal<[AntiNukeEntitlements]>(ENTITLEMENTS_CHANGED_SIGNAL);
export const antinukeStateQuery = defineQuery<AntiNukeWorkflowState>(ANTINUKE_STATE_QUERY);

const { takeIncidentSnapshot } = proxyActivities<AntiNukeActivities>(INCIDENT_SNAPSHOT_OPTIONS);
const { removeActorRoles } = proxyActivities<AntiNukeActivities>(AUTO_ACTION_OPTIONS);
const { openIncident } = proxyActivities<AntiNukeActivities>(OPEN_INCIDENT_OPTIONS);

/**
 * One guild's AntiNuke (ARCHITECTURE.md "antinuke"): counts the destructive actions live sync
 * signals, and when one actor reaches the threshold of one kind within the window, opens one
 * incident for that burst. Runs until the plan loses ANTINUKE_DETECT; continues as new every
 * SIGNALS_PER_RUN signals with its windows carried over.
 */
export async function antinukeWorkflow(input: AntiNukeWorkflowInput): Promise<AntiNukeWorkflowResult> {
  let settings: AntiNukeSettings = { ...input.settings };
  let entitlements: AntiNukeEntitlements = { ...input.entitlements };
  const detector = new BurstDetector(settings, input.carried?.detector);
  const pending: Burst[] = [];
  const signalsPerRun = input.signalsPerRun ?? SIGNALS_PER_RUN;
  let incidentsOpened = input.carried?.incidents_opened ?? 0;
  let signals = 0;
  let actions = 0;

  setHandler(destructiveActionSignal, (action) => {
    signals++;
    actions++;
    if (!entitlements.detect) return;
    const counted = countedAction(input.guildId, action, Date.now());
    if (!counted) {
      log.warn('destructive action ignored: not one of this guild', { guild_id: input.guildId });
      return;
    }
    const outcome = detector.record(counted);
    if (outcome.result === 'burst') pending.push(outcome.burst);
  });
  setHandler(settingsChangedSignal, (next) => {
    signals++;
    settings = validSettings(next, settings);
    if (!entitlements.auto_action_allowed) settings.auto_action_enabled = false;
    detector.configure(settings);
  });
  setHandler(entitlementsChangedSignal, (next) => {
    signals++;
    entitlements = { detect: next.detect === true, auto_action_allowed: next.auto_action_allowed === true };
    // Spec appendix rule 7: losing auto-action switches it off; a later upgrade does not turn it back on.
    if (!entitlements.auto_action_allowed) settings = { ...settings, auto_action_enabled: false };
  });
  setHandler(antinukeStateQuery, () => ({
    settings,
    entitlements,
    signals_this_run: signals,
    actions_this_run: actions,
    incidents_opened: incidentsOpened,
    incidents_pending: pending.length,
  }));

  const rollOver = () => {
    const info = workflowInfo();
    return (
      signals >= signalsPerRun || info.continueAsNewSuggested || info.historyLength >= MAX_HISTORY_EVENTS
    );
  };

  for (;;) {
    await condition(() => pending.length > 0 || !entitlements.detect || rollOver());
    // Bursts detected before a downgrade still get their incident.
    for (let burst = pending.shift(); burst; burst = pending.shift()) {
      await handleIncident(
        input.guildId,
        burst,
        () => settings.auto_action_enabled && entitlements.auto_action_allowed,
      );
      incidentsOpened++;
    }
    if (!entitlements.detect) return { ended: 'detection_removed', incidents_opened: incidentsOpened };
    if (rollOver()) {
      await condition(allHandlersFinished);
      if (pending.length > 0 || !entitlements.detect) continue;
      return continueAsNew<typeof antinukeWorkflow>({
        guildId: input.guildId,
        settings,
        entitlements,
        carried: { detector: detector.state(), incidents_opened: incidentsOpened },
        signalsPerRun: input.signalsPerRun,
      });
    }
  }
}

/**
 * Snapshot first, so it shows the guild before further damage; then the auto-action, so the
 * attacker is stopped before anything slower happens; then the incident and its event in one
 * transaction, which therefore say what really happened (snapshot id or error, roles removed or
 * not). Neither a failed snapshot nor a failed auto-action stops the incident (spec §7.4).
 */
async function handleIncident(guildId: string, burst: Burst, autoActionOn: () => boolean): Promise<void> {
  const incidentId = incidentIdFrom(Date.now(), uuid4());
  const openedAt = new Date().toISOString();

  const snapshot = await takeIncidentSnapshot({ guildId, incidentId }).then(
    ({ snapshotId }) => ({ snapshotId, error: null }),
    (error: unknown) => ({ snapshotId: null, error: failureMessage(error) }),
  );

  let autoAction: AutoActionOutcome = { taken: false, error: null };
  if (autoActionOn()) {
    autoAction = await removeActorRoles({
      guildId,
      incidentId,
      actorPlatformUserId: burst.actor_platform_user_id,
    }).catch((error: unknown) => ({ taken: false, error: failureMessage(error) }));
  }

  try {
    await openIncident({
      incidentId,
      guildId,
      burst,
      snapshotId: snapshot.snapshotId,
      snapshotError: snapshot.error,
      autoActionTaken: autoAction.taken,
      autoActionError: autoAction.error,
      openedAt,
    });
  } catch (error) {
    log.error('antinuke incident could not be recorded', {
      alert: 'antinuke_incident_not_recorded',
      guild_id: guildId,
      incident_id: incidentId,
      error: failureMessage(error),
    });
  }
}

/** The action as the detector counts it, or null when it is not a valid action of this guild. */
function countedAction(guildId: string, action: DestructiveAction, now: number): CountedAction | null {
  if (
    typeof action !== 'object' ||
    action === null ||
    action.guild_id !== guildId ||
    !(DESTRUCTIVE_ACTION_KINDS as readonly string[]).includes(action.kind) ||
    typeof action.actor_platform_user_id !== 'string' ||
    action.actor_platform_user_id === '' ||
    typeof action.audit_log_entry_id !== 'string' ||
    action.audit_log_entry_id === ''
  ) {
    return null;
  }
  // The platform's time of the action; never later than now, so a skewed clock cannot make
  // everything else look stale.
  const at = Date.parse(action.at);
  return {
    kind: action.kind,
    actor_platform_user_id: action.actor_platform_user_id,
    audit_log_entry_id: action.audit_log_entry_id,
    at: Number.isFinite(at) ? Math.min(at, now) : now,
  };
}

function validSettings(next: AntiNukeSettings, current: AntiNukeSettings): AntiNukeSettings {
  const inRange = (value: unknown, limits: { min: number; max: number }): value is number =>
    Number.isInteger(value) && (value as number) >= limits.min && (value as number) <= limits.max;
  const { threshold, window_seconds } = ANTINUKE_SETTING_LIMITS;
  return {
    threshold: inRange(next?.threshold, threshold) ? next.threshold : current.threshold,
    window_seconds: inRange(next?.window_seconds, window_seconds)
      ? next.window_seconds
      : current.window_seconds,
    auto_action_enabled:
      typeof next?.auto_action_enabled === 'boolean' ? next.auto_action_enabled : current.auto_action_enabled,
  };
}

function failureMessage(error: unknown): string {
  const cause = error instanceof ActivityFailure && error.cause ? error.cause : error;
  if (cause instanceof ApplicationFailure && cause.type) return `${cause.type}: ${cause.message}`;
  return cause instanceof Error ? cause.message : String(cause);
}
