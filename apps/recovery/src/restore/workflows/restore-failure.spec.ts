import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import { classifyRestoreFailure } from './restore-failure';

const ref = { jobId: 'job-1' };

/** How Temporal hands a workflow an activity's last failure. */
function onTemporal(cause: Error): ActivityFailure {
  return new ActivityFailure(
    'Activity task failed',
    'createOrUpdateRoles',
    '7',
    'NON_RETRYABLE_FAILURE',
    'worker',
    cause,
  );
}

/** The same failure as each engine hands it to the procedure. */
const ENGINES: [string, (cause: Error) => Error][] = [
  ['on Temporal', (cause) => onTemporal(cause)],
  ['in process', (cause) => cause],
];

describe(classifyRestoreFailure.name, () => {
  describe.each(ENGINES)('with the failure as handed %s', (_engine, wrap) => {
    it.each([
      {
        does: 'cancels the job with "guild deleted" when the guild is gone',
        cause: ApplicationFailure.nonRetryable('Unknown Guild', 'GuildNotFound'),
        ending: { status: 'canceled', code: 'guild_deleted', message: 'guild deleted' },
      },
      {
        does: 'fails the job with the failure’s type and message otherwise',
        cause: ApplicationFailure.nonRetryable('Missing Permissions', 'PermissionDenied'),
        ending: { status: 'failed', code: 'PermissionDenied', message: 'Missing Permissions' },
      },
    ])('$does', ({ cause, ending }) => {
      expect(classifyRestoreFailure(wrap(cause), ref)).toEqual({ jobId: 'job-1', ...ending });
    });
  });

  it('calls a failure without a type an Error', () => {
    expect(classifyRestoreFailure(new Error('boom'), ref)).toMatchObject({ code: 'Error', message: 'boom' });
    expect(classifyRestoreFailure('odd', ref)).toMatchObject({
      status: 'failed',
      code: 'Error',
      message: 'odd',
    });
  });
});
