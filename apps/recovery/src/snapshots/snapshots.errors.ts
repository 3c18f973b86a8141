// Loaded in Temporal's workflow sandbox (recovery's workflow code names its failures by these
// problems): the relative path is one the workflow bundler resolves, and the file brings in no Nest.
import { defineNotFound, defineProblem } from '../../../../libs/problem-details/src/definitions';

/** The problems of taking, reading and deleting snapshots. */
export const SnapshotErrors = {
  notFound: defineNotFound('ErrSnapshotNotFound', 'Snapshot'),
  tooLarge: defineProblem(
    { code: 'ErrSnapshotTooLarge', status: 413, title: 'Snapshot too large' },
    (size: number, limit: number) => ({
      detail: `The guild's state is ${size} bytes, over the ${limit} byte limit for a snapshot.`,
      extensions: { size, limit },
    }),
  ),
  /** docs/behaviour.md §9.2: a payload of a version this build cannot read is refused, for preview and restore. */
  unsupported: defineProblem(
    { code: 'ErrSnapshotUnsupported', status: 422, title: 'Snapshot unsupported' },
    (version: unknown, supportedVersions: readonly number[]) => ({
      detail: `This snapshot's payload version (${JSON.stringify(version ?? null)}) cannot be restored by this version of the service.`,
      extensions: { version: version ?? null, supported_versions: supportedVersions },
    }),
  ),
  /** Another manual snapshot of the guild is being taken; its slot is reserved until it is stored. */
  inProgress: defineProblem({ code: 'ErrSnapshotInProgress', status: 409, title: 'Conflict' }, () => ({
    detail: 'A snapshot of this guild is being taken. Try again once it has been stored.',
  })),
  /** Every kept snapshot of the kind is still needed: the new one is not taken. */
  limitReached: defineProblem(
    { code: 'ErrSnapshotLimitReached', status: 409, title: 'Snapshot limit reached' },
    (trigger: string, limit: number) => ({
      detail: `The guild already keeps ${limit} ${trigger} snapshots, all still needed.`,
      extensions: { trigger, limit },
    }),
  ),
  planLimitExceeded: defineProblem({ code: 'ErrPlanLimitExceeded', status: 409, title: 'Conflict' }),
  restoreInProgress: defineProblem({ code: 'ErrRestoreInProgress', status: 409, title: 'Conflict' }, () => ({
    detail: 'A restore of this guild is running. Take the snapshot once it has finished.',
  })),
  inUse: defineProblem({ code: 'ErrSnapshotInUse', status: 409, title: 'Conflict' }, () => ({
    detail: 'A running restore is using this snapshot. Delete it afterwards.',
  })),
  ofOpenIncident: defineProblem({ code: 'ErrSnapshotOfOpenIncident', status: 409, title: 'Conflict' }),
} as const;
