import type { AntiNukeActivities, OpenIncidentInput } from '../../antinuke/workflows/antinuke-contract';

/**
 * AntiNuke activities for the in-process engine's tests: each recorded incident in `opened` (and
 * `nextIncident()`'s promise resolved), each quarantined actor in `removed`; the snapshot is
 * `snap-1` unless `snapshot` answers otherwise.
 */
export function fakeAntiNukeActivities(
  snapshot: () => Promise<{ snapshotId: string }> = () => Promise.resolve({ snapshotId: 'snap-1' }),
) {
  const opened: OpenIncidentInput[] = [];
  const removed: string[] = [];
  let notify: (() => void) | undefined;
  const activities: AntiNukeActivities = {
    takeIncidentSnapshot: snapshot,
    // A run in process contains first: the quarantine, never the older removeActorRoles.
    removeActorRoles: () =>
      Promise.reject(new Error('removeActorRoles is for runs started before quarantine')),
    quarantineActor: ({ actorPlatformUserId }) => {
      removed.push(actorPlatformUserId);
      return Promise.resolve({ taken: true, error: null, record: null });
    },
    startIncidentLockdown: () => Promise.resolve({ lockdownId: null }),
    openIncident: (incident) => {
      opened.push(incident);
      notify?.();
      return Promise.resolve();
    },
    recordIncidentTargets: () => Promise.resolve(),
  };
  const nextIncident = () => new Promise<void>((resolve) => (notify = resolve));
  return { activities, opened, removed, nextIncident };
}
