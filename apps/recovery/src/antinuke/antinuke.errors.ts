import { defineNotFound, defineProblem } from '@lib/problem-details';

/** The problems of AntiNuke's settings, pending changes, incidents, quarantines and lockdowns. */
export const AntiNukeErrors = {
  ownerOnly: defineProblem(
    { code: 'ErrOwnerOnly', status: 403, title: 'Only the server owner may do this' },
    (
      detail: string = "Only the server's owner may refuse or apply early a pending AntiNuke change, and see or undo deleted snapshots.",
    ) => ({ detail }),
  ),
  selfExemption: defineProblem(
    { code: 'ErrSelfExemption', status: 403, title: 'You cannot exempt yourself' },
    () => ({
      detail:
        'Nobody may add their own account to the AntiNuke exemptions; the attempt is recorded in the audit log.',
    }),
  ),
  settingsNotSignalled: defineProblem(
    { code: 'ErrWorkflowUnavailable', status: 503, title: 'AntiNuke could not be updated' },
    () => ({
      detail:
        'The running AntiNuke could not be reached, so the setting was not changed. Try again in a moment.',
    }),
  ),
  pendingChangeNotFound: defineNotFound('ErrPendingChangeNotFound', 'Pending AntiNuke change'),
  incidentNotFound: defineNotFound('ErrIncidentNotFound', 'Incident'),
  incidentWithoutRaider: defineProblem(
    { code: 'ErrIncidentWithoutRaider', status: 409, title: 'Conflict' },
    () => ({
      detail:
        'This incident names no raider (guildkeeper was removed, or lost the audit log), so there is no raid to take apart: restore from the last snapshot taken before it.',
    }),
  ),
  quarantineNotFound: defineNotFound('ErrQuarantineNotFound', 'Quarantine'),
  quarantineNotGivenBack: defineProblem({
    code: 'ErrBotPermissionDenied',
    status: 403,
    title: 'The quarantine could not be given back',
  }),
  lockdownActive: defineProblem({
    code: 'ErrLockdownActive',
    status: 409,
    title: 'The guild is locked down already',
  }),
  lockdownInProgress: defineProblem(
    { code: 'ErrLockdownInProgress', status: 409, title: 'A lockdown is starting' },
    () => ({
      detail: 'A lockdown of this guild is being started or lifted. Try again in a moment.',
    }),
  ),
  noLockdown: defineProblem({ code: 'ErrNoLockdown', status: 404, title: 'No lockdown' }, () => ({
    detail: 'The guild is not locked down.',
  })),
  lockdownNotStarted: defineProblem({
    code: 'ErrBotPermissionDenied',
    status: 403,
    title: 'The lockdown could not be started',
  }),
  lockdownNotLifted: defineProblem({
    code: 'ErrBotPermissionDenied',
    status: 403,
    title: 'The lockdown could not be lifted',
  }),
} as const;
