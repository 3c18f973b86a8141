import type { RestoreActivities, RestoreFailure } from './restore-contract';
import {
  type ActivityBehaviour,
  fakeRestoreActivities,
  STEP_DONE as DONE,
} from './restore-activities.fixture';
import { runRestore } from './restore-procedure';
import { RestoreProgress } from './restore-progress';

function recordingActivities(calls: string[], behave: ActivityBehaviour = {}) {
  return fakeRestoreActivities(behave, calls).activities;
}

function run(
  activities: RestoreActivities,
  scope = ['roles', 'channels', 'permission_overrides', 'guild_settings'],
  cancel = () => false,
) {
  return runRestore(
    { jobId: 'job', scope: scope as never, createPreRestoreSnapshot: true, totals: {} },
    {
      activities,
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
}

describe(runRestore.name, () => {
  it('runs the appendix’s steps in order: deletes in reverse dependency order, then creates forward', async () => {
    const calls: string[] = [];
    expect(await run(recordingActivities(calls))).toBe('completed');
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
    const calls: string[] = [];
    await run(recordingActivities(calls), ['guild_settings']);
    expect(calls.filter((call) => /^(delete|createOrUpdate|apply|update)/.test(call))).toEqual([
      'updateGuildSettings',
    ]);
  });

  it('goes on without the pre-restore snapshot when it fails', async () => {
    const calls: string[] = [];
    const outcome = await run(
      recordingActivities(calls, { createPreRestoreSnapshot: () => Promise.reject(new Error('x')) }),
    );
    expect(outcome).toBe('completed');
  });

  it('resumes live sync and ends the job failed when a step fails, with no later step', async () => {
    const calls: string[] = [];
    const outcome = await run(
      recordingActivities(calls, { createOrUpdateRoles: () => Promise.reject(new Error('boom')) }),
    );
    expect(outcome).toBe('failed');
    expect(calls.slice(calls.indexOf('createOrUpdateRoles'))).toEqual([
      'createOrUpdateRoles',
      'resumeLiveSync',
      'endRestoreUnsuccessfully',
    ]);
  });

  it('fails at ValidateSnapshot without touching the guild, still resuming live sync', async () => {
    const calls: string[] = [];
    const outcome = await run(
      recordingActivities(calls, { validateSnapshot: () => Promise.reject(new Error('v99')) }),
    );
    expect(outcome).toBe('failed');
    expect(calls).toEqual(['validateSnapshot', 'resumeLiveSync', 'endRestoreUnsuccessfully']);
  });

  it('on cancel lets the running step finish and skips the later ones', async () => {
    const calls: string[] = [];
    let canceled = false;
    const activities = recordingActivities(calls, {
      deleteRemovedRoles: () => {
        canceled = true;
        return Promise.resolve(DONE);
      },
    });
    expect(await run(activities, undefined, () => canceled)).toBe('canceled');
    expect(calls.slice(calls.indexOf('deleteRemovedRoles'))).toEqual([
      'deleteRemovedRoles',
      'resumeLiveSync',
      'endRestoreUnsuccessfully',
    ]);
  });

  it('calls a step again while it reports work remaining', async () => {
    const calls: string[] = [];
    let left = 2;
    const activities = recordingActivities(calls, {
      createOrUpdateRoles: () => Promise.resolve({ created: 50, updated: 0, deleted: 0, remaining: left-- }),
    });
    await run(activities, ['roles']);
    expect(calls.filter((call) => call === 'createOrUpdateRoles')).toHaveLength(3);
  });
});
