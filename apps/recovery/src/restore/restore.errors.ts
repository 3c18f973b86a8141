// Loaded in Temporal's workflow sandbox (recovery's workflow code names its failures by these
// problems): the relative path is one the workflow bundler resolves, and the file brings in no Nest.
import { defineNotFound, defineProblem } from '../../../../libs/problem-details/src/definitions';

/** The problems of starting, following and cancelling a restore. */
export const RestoreErrors = {
  jobNotFound: defineNotFound('ErrRestoreJobNotFound', 'Restore job'),
  diffChanged: defineProblem({ code: 'ErrDiffChanged', status: 409, title: 'Conflict' }, () => ({
    detail: 'The guild has changed since the preview. Preview the restore again and approve the new changes.',
  })),
  /** docs/behaviour.md §4.2 rule 2: 409 with the existing job's information. */
  alreadyInProgress: defineProblem(
    { code: 'ErrRestoreAlreadyInProgress', status: 409, title: 'Conflict' },
    (existingJob: unknown) => ({
      detail: 'A restore of this guild is already pending or running. Wait for it to finish or cancel it.',
      extensions: { existing_job: existingJob },
    }),
  ),
  notActive: defineProblem({ code: 'ErrRestoreNotActive', status: 409, title: 'Conflict' }),
  workflowUnavailable: defineProblem(
    { code: 'ErrWorkflowUnavailable', status: 503, title: 'Restore could not start' },
    (jobId: string) => ({
      detail: 'The restore could not be started right now. Nothing was changed; try again in a few minutes.',
      extensions: { job_id: jobId },
    }),
  ),
  cancelNotDelivered: defineProblem(
    { code: 'ErrWorkflowUnavailable', status: 503, title: 'Cancel not delivered' },
    () => ({ detail: 'The restore could not be reached to cancel it. Try again in a moment.' }),
  ),
} as const;
