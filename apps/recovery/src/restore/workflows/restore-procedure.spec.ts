import type { RestoreFailure } from './restore-contract';
import {
  type ActivityBehaviour,
  fakeRestoreActivities,
  STEP_DONE as DONE,
  UNSUCCESSFUL_END,
} from './restore-activities.fixture';
import { runRestore } from './restore-procedure';
import { RestoreProgress } from './restore-progress';

/** Runs the procedure on activities that behave as `behave` says; its outcome and the calls it made. */
async function run(
  behave: ActivityBehaviour = {},
  scope = ['roles', 'channels', 'permission_overrides', 'guild_settings'],
  cancel = () => false,
) {
  const fake = fakeRestoreActivities(behave);
  const outcome = await runRestore(
    { jobId: 'job', scope: scope as never, createPreRestoreSnapshot: true, totals: {} },
    {
      activities: fake.activities,
      cancelRequested: cancel,
      classify: (error, ref): RestoreFailure => ({
        ...ref,
        status: 'failed',
        code: 'Error',
        message: String(error),
      }),
      shielded: (work) => work(),
    },
    new RestoreProgress({}),
  );
  return { outcome, calls: fake.calls, callsFrom: fake.callsFrom };
}

describe(runRestore.name, () => {
  it('runs the appendix’s steps in order: deletes in reverse dependency order, then creates forward', async () => {
    const { outcome, calls } = await run();
    expect(outcome).toBe('completed');
    expect(calls).toEqual([
      'validateSnapshot',
      'createPreRestoreSnapshot',
      'pauseLiveSync',
      'deleteRemovedOverrides',
      'deleteRemovedChannels',
      'deleteRemovedRoles',
      'createOrUpdateRoles',
      'createOrUpdateChannels',
      'applyPermissionOverrides',
      'updateGuildSettings',
      'resumeLiveSync',
      'completeRestore',
    ]);
  });

  it('skips the delete phase for guild settings alone', async () => {
    const { calls } = await run({}, ['guild_settings']);
    expect(calls.filter((call) => /^(delete|createOrUpdate|apply|update)/.test(call))).toEqual([
      'updateGuildSettings',
    ]);
  });

  it('goes on without the pre-restore snapshot when it fails', async () => {
    const { outcome } = await run({ createPreRestoreSnapshot: () => Promise.reject(new Error('x')) });
    expect(outcome).toBe('completed');
  });

  it('resumes live sync and ends the job failed when a step fails, with no later step', async () => {
    const { outcome, callsFrom } = await run({
      createOrUpdateRoles: () => Promise.reject(new Error('boom')),
    });
    expect(outcome).toBe('failed');
    expect(callsFrom('createOrUpdateRoles')).toEqual(['createOrUpdateRoles', ...UNSUCCESSFUL_END]);
  });

  it('fails at ValidateSnapshot without touching the guild, still resuming live sync', async () => {
    const { outcome, calls } = await run({ validateSnapshot: () => Promise.reject(new Error('v99')) });
    expect(outcome).toBe('failed');
    expect(calls).toEqual(['validateSnapshot', ...UNSUCCESSFUL_END]);
  });

  it('on cancel lets the running step finish and skips the later ones', async () => {
    let canceled = false;
    const behave: ActivityBehaviour = {
      deleteRemovedRoles: () => {
        canceled = true;
        return Promise.resolve(DONE);
      },
    };
    const { outcome, callsFrom } = await run(behave, undefined, () => canceled);
    expect(outcome).toBe('canceled');
    expect(callsFrom('deleteRemovedRoles')).toEqual(['deleteRemovedRoles', ...UNSUCCESSFUL_END]);
  });

  it('calls a step again while it reports work remaining', async () => {
    let left = 2;
    const { calls } = await run(
      {
        createOrUpdateRoles: () =>
          Promise.resolve({ created: 50, updated: 0, deleted: 0, remaining: left-- }),
      },
      ['roles'],
    );
    expect(calls.filter((call) => call === 'createOrUpdateRoles')).toHaveLength(3);
  });
});
