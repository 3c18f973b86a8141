import {
  allHandlersFinished,
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  log,
  patched,
  proxyActivities,
  setHandler,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { DestructiveAction, MemberRolesRemoved } from '../destructive-action';
import {
  ANTINUKE_STATE_QUERY,
  type AntiNukeActivities,
  type AntiNukeEntitlements,
  type AntiNukeSettings,
  type AntiNukeWorkflowInput,
  type AntiNukeWorkflowResult,
  type AntiNukeWorkflowState,
  DESTRUCTIVE_ACTION_SIGNAL,
  ENTITLEMENTS_CHANGED_SIGNAL,
  MEMBER_ROLES_REMOVED_SIGNAL,
  SETTINGS_CHANGED_SIGNAL,
} from './antinuke-contract';
import { AntiNukeGuard } from './antinuke-guard';
import { guardGuild } from './incident-loop';
import {
  AUTO_ACTION_OPTIONS,
  INCIDENT_LOCKDOWN_OPTIONS,
  INCIDENT_SNAPSHOT_OPTIONS,
  MAX_HISTORY_EVENTS,
  OPEN_INCIDENT_OPTIONS,
  QUARANTINE_OPTIONS,
  RECORD_TARGETS_OPTIONS,
  SIGNALS_PER_RUN,
} from './antinuke-policy';
import { incidentIdFrom } from './incident-id';

export const destructiveActionSignal = defineSignal<[DestructiveAction]>(DESTRUCTIVE_ACTION_SIGNAL);
export const memberRolesRemovedSignal = defineSignal<[MemberRolesRemoved]>(MEMBER_ROLES_REMOVED_SIGNAL);
export const settingsChangedSignal = defineSignal<[AntiNukeSettings]>(SETTINGS_CHANGED_SIGNAL);
export const entitlementsChangedSignal = defineSignal<[AntiNukeEntitlements]>(ENTITLEMENTS_CHANGED_SIGNAL);
export const antinukeStateQuery = defineQuery<AntiNukeWorkflowState>(ANTINUKE_STATE_QUERY);

const { takeIncidentSnapshot } = proxyActivities<AntiNukeActivities>(INCIDENT_SNAPSHOT_OPTIONS);
const { removeActorRoles } = proxyActivities<AntiNukeActivities>(AUTO_ACTION_OPTIONS);
const { quarantineActor } = proxyActivities<AntiNukeActivities>(QUARANTINE_OPTIONS);
const { startIncidentLockdown } = proxyActivities<AntiNukeActivities>(INCIDENT_LOCKDOWN_OPTIONS);
const { openIncident } = proxyActivities<AntiNukeActivities>(OPEN_INCIDENT_OPTIONS);
const { recordIncidentTargets } = proxyActivities<AntiNukeActivities>(RECORD_TARGETS_OPTIONS);

/**
 * Marks runs that record what raiders do to members (roles taken, bans, kicks). A run begun before replays
 * without it, and so schedules no recordIncidentTargets its history lacks; its next run has it.
 */
export const INCIDENT_TARGETS_PATCH = 'antinuke-incident-targets';

/**
 * Marks runs that weigh every kind of action into one score per actor (RaidScore). A run begun
 * before replays with the per-kind counting its history was made with; its next run has it, and
 * takes the per-kind windows over.
 */
export const RAID_SCORE_PATCH = 'antinuke-raid-score';

/**
 * Marks runs that contain first (quarantine before the snapshot, lockdown when opted in). A run
 * begun before replays its own order (snapshot, then removeActorRoles); its next run has it.
 */
export const CONTAINMENT_PATCH = 'antinuke-containment';

/**
 * One guild's AntiNuke on Temporal (the guard in antinuke-guard.ts): weighs the destructive
 * actions live sync signals into one score per actor, and when an actor's score reaches the
 * threshold within the short window (or three times it within the long one), opens one incident
 * for that burst. Runs until the plan loses ANTINUKE_DETECT; continues
 * as new every SIGNALS_PER_RUN signals with its windows carried over.
 */
export async function antinukeWorkflow(input: AntiNukeWorkflowInput): Promise<AntiNukeWorkflowResult> {
  const guard = new AntiNukeGuard(input, log, {
    recordsTargets: patched(INCIDENT_TARGETS_PATCH),
    scoresActions: patched(RAID_SCORE_PATCH),
    containsFirst: patched(CONTAINMENT_PATCH),
  });
  const signalsPerRun = input.signalsPerRun ?? SIGNALS_PER_RUN;

  setHandler(destructiveActionSignal, (action) => guard.destructiveAction(action, Date.now()));
  setHandler(memberRolesRemovedSignal, (removal) => guard.memberRolesRemoved(removal, Date.now()));
  setHandler(settingsChangedSignal, (next) => guard.changeSettings(next));
  setHandler(entitlementsChangedSignal, (next) => guard.changeEntitlements(next));
  setHandler(antinukeStateQuery, () => guard.state());

  const shouldRollOver = () => {
    const info = workflowInfo();
    return (
      guard.signalsThisRun >= signalsPerRun ||
      info.continueAsNewSuggested ||
      info.historyLength >= MAX_HISTORY_EVENTS
    );
  };

  for (;;) {
    const ended = await guardGuild(guard, {
      activities: {
        takeIncidentSnapshot,
        removeActorRoles,
        quarantineActor,
        startIncidentLockdown,
        openIncident,
        recordIncidentTargets,
      },
      waitUntil: (ready) => condition(ready),
      shouldRollOver,
      now: () => Date.now(),
      newIncidentId: () => incidentIdFrom(Date.now(), uuid4()),
      log,
    });
    if (ended === 'detection_removed') return guard.result();
    await condition(allHandlersFinished);
    if (guard.hasWork()) continue;
    return continueAsNew<typeof antinukeWorkflow>(guard.continuation());
  }
}
