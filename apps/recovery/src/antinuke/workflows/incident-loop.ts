import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import {
  AUTO_LOCKDOWN_MINUTES,
  type AutoActionOutcome,
  type Burst,
  type IncidentTarget,
} from './antinuke-contract';
import type { AntiNukeGuard, AntiNukeRunHost } from './antinuke-guard';

/*
 * The incident loop of a guild's AntiNuke run: it waits for the bursts AntiNukeGuard finds and,
 * for each, contains the actor, snapshots the guild and records the incident, through the
 * activities of the engine running it (Temporal's workflow or the in-process runner).
 */
/**
 * Waits for bursts and opens one incident for each, until detection is removed or the engine
 * wants a new run. Bursts detected before a downgrade still get their incident.
 */
export async function guardGuild(
  guard: AntiNukeGuard,
  host: AntiNukeRunHost,
): Promise<'detection_removed' | 'roll_over'> {
  for (;;) {
    await host.waitUntil(() => guard.hasWork() || host.shouldRollOver());
    for (let burst = guard.nextBurst(); burst; burst = guard.nextBurst()) {
      await handleIncident(guard, burst, host);
      guard.incidentOpened();
    }
    for (let batch = guard.nextTargets(); batch; batch = guard.nextTargets()) {
      await recordTargets(guard, batch, host);
    }
    if (!guard.detecting) return 'detection_removed';
    if (host.shouldRollOver()) return 'roll_over';
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
async function handleIncident(guard: AntiNukeGuard, burst: Burst, host: AntiNukeRunHost): Promise<void> {
  const { guildId } = guard;
  const { activities } = host;
  const incidentId = host.newIncidentId();
  const openedAt = new Date(host.now()).toISOString();
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
        host.log.error('antinuke incident lockdown failed', {
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
    host.log.error('antinuke incident could not be recorded', {
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
  host: AntiNukeRunHost,
): Promise<void> {
  try {
    await host.activities.recordIncidentTargets({ guildId: guard.guildId, ...batch });
  } catch (error) {
    host.log.error('antinuke incident targets could not be recorded', {
      alert: 'antinuke_incident_targets_not_recorded',
      guild_id: guard.guildId,
      incident_id: batch.incidentId,
      targets: batch.targets.length,
      error: failureMessage(error),
    });
  }
}

/** An activity's failure as the incident records it: `Type: message` when it has a type. */
export function failureMessage(error: unknown): string {
  const cause = error instanceof ActivityFailure && error.cause ? error.cause : error;
  if (cause instanceof ApplicationFailure && cause.type) return `${cause.type}: ${cause.message}`;
  return cause instanceof Error ? cause.message : String(cause);
}
