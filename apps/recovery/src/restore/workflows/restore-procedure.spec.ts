import {
  OVERLAPPED_PHASES,
  type RestoreFailure,
  type StepOutcome,
  type StepPhases,
  type StepRef,
} from './restore-contract';
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
  phases: StepPhases | undefined = undefined,
  sleepUntil: (until: string) => Promise<void> = () => Promise.resolve(),
  progress = new RestoreProgress({}),
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
      sleepUntil,
      phases,
    },
    progress,
  );
  return {
    outcome,
    calls: fake.calls,
    inputs: fake.inputs,
    endings: fake.endings,
    callsFrom: fake.callsFrom,
  };
}

const ALL_SCOPES = ['roles', 'channels', 'permission_overrides', 'guild_settings'];
const step = (remaining: number, created = 1): StepOutcome => ({
  created,
  updated: 0,
  deleted: 0,
  remaining,
});

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

  it('waits out a pause the platform asks for, saying so in the progress, then calls the step again', async () => {
    const until = '2026-12-01T10:00:00.000Z';
    const progress = new RestoreProgress({ CreateOrUpdateRoles: 300 });
    const seen: unknown[] = [];
    const { outcome, calls } = await run(
      {
        createOrUpdateRoles: (call) =>
          Promise.resolve(
            call === 1 ? { ...step(51, 249), pause: { reason: 'role_creation_quota', until } } : step(0, 51),
          ),
      },
      ['roles'],
      undefined,
      undefined,
      (at) => {
        seen.push(at, progress.summary().waiting);
        return Promise.resolve();
      },
      progress,
    );
    expect(outcome).toBe('completed');
    expect(calls.filter((call) => call === 'createOrUpdateRoles')).toHaveLength(2);
    expect(seen).toEqual([
      until,
      {
        step: 'CreateOrUpdateRoles',
        reason: 'role_creation_quota',
        until,
        message: `Waiting for the platform's role creation quota until ${until}`,
      },
    ]);
    expect(progress.summary().waiting).toBeUndefined();
  });

  it('ends canceled when the cancel comes during a pause, without calling the step again', async () => {
    let canceled = false;
    const { outcome, callsFrom } = await run(
      {
        createOrUpdateRoles: () =>
          Promise.resolve({
            ...step(5),
            pause: { reason: 'role_creation_quota', until: '2099-01-01T00:00:00Z' },
          }),
      },
      ['roles'],
      () => canceled,
      undefined,
      () => {
        canceled = true;
        return Promise.resolve();
      },
    );
    expect(outcome).toBe('canceled');
    expect(callsFrom('createOrUpdateRoles')).toEqual(['createOrUpdateRoles', ...UNSUCCESSFUL_END]);
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

  describe('with the steps overlapped', () => {
    it('runs the channel and role deletes side by side, then the rest beside the creates, then the settings', async () => {
      const { outcome, calls } = await run(
        { deleteRemovedChannels: (call) => Promise.resolve(step(call === 1 ? 1 : 0)) },
        ALL_SCOPES,
        () => false,
        OVERLAPPED_PHASES,
      );
      expect(outcome).toBe('completed');
      const changes = calls.filter((call) => /^(delete|createOrUpdate|apply|update)/.test(call));
      // The role deletes started before the channel deletes' second call; no create before them.
      expect(changes.slice(0, 3)).toEqual([
        'deleteRemovedChannels',
        'deleteRemovedRoles',
        'deleteRemovedChannels',
      ]);
      expect(changes.slice(3)).toEqual([
        'deleteRemovedOverrides',
        'createOrUpdateRoles',
        'createOrUpdateChannels',
        'applyPermissionOverrides',
        'updateGuildSettings',
      ]);
    });

    it('holds a step that made progress but says all it has left waits, until a step it awaits ends', async () => {
      const { calls } = await run(
        {
          createOrUpdateRoles: (call) =>
            new Promise((resolve) => setTimeout(() => resolve(step(call < 3 ? 1 : 0)), 5)),
          createOrUpdateChannels: () => Promise.resolve(step(0)),
          // Applies some each call; while the others run, what is left waits for them.
          applyPermissionOverrides: (_, input) =>
            Promise.resolve(
              (input as StepRef).awaiting?.length
                ? { created: 1, updated: 0, deleted: 0, remaining: 1, waiting: true }
                : step(0),
            ),
        },
        ['roles', 'channels', 'permission_overrides'],
        () => false,
        OVERLAPPED_PHASES,
      );
      const applied = calls.filter((call) => call === 'applyPermissionOverrides').length;
      // One call while roles and channels ran, one after the channels step ended (the first to),
      // one after the roles step: not a call after each of their calls.
      expect(applied).toBeLessThanOrEqual(3);
      expect(calls.lastIndexOf('applyPermissionOverrides')).toBeGreaterThan(
        calls.lastIndexOf('createOrUpdateRoles'),
      );
    });

    it('tells a step which steps beside it it waits for, and holds it while all it has left waits', async () => {
      const { calls, inputs } = await run(
        {
          // Each call takes a while, as the platform's role bucket makes it.
          createOrUpdateRoles: (call) =>
            new Promise((resolve) => setTimeout(() => resolve(step(call < 3 ? 1 : 0)), 5)),
          // While it waits for the roles it can do nothing; then all of it.
          createOrUpdateChannels: (_, input) =>
            Promise.resolve((input as StepRef).awaiting?.length ? step(1, 0) : step(0)),
        },
        ['roles', 'channels', 'permission_overrides'],
        () => false,
        OVERLAPPED_PHASES,
      );
      const refsOf = (name: string) =>
        calls.flatMap((call, i) => (call === name ? [inputs[i] as StepRef] : []));
      const channels = refsOf('createOrUpdateChannels').map((ref) => ref.awaiting ?? []);
      // A call that could do nothing waits for the roles step to be done, not for each of its
      // calls: one call while it ran, one after.
      expect(channels).toEqual([['CreateOrUpdateRoles'], []]);
      expect(calls.lastIndexOf('createOrUpdateChannels')).toBeGreaterThan(
        calls.lastIndexOf('createOrUpdateRoles'),
      );
      expect(refsOf('applyPermissionOverrides')[0].awaiting).toEqual([
        'CreateOrUpdateRoles',
        'CreateOrUpdateChannels',
      ]);
    });

    it('stops the steps beside a failed one after their current call, and ends the run failed once', async () => {
      const { outcome, count, endings } = await (async () => {
        const result = await run(
          {
            createOrUpdateRoles: (call) =>
              call === 2 ? Promise.reject(new Error('boom')) : Promise.resolve(step(5)),
            // Would call again for ever.
            createOrUpdateChannels: () => Promise.resolve(step(1)),
          },
          ALL_SCOPES,
          () => false,
          OVERLAPPED_PHASES,
        );
        return { ...result, count: (name: string) => result.calls.filter((call) => call === name).length };
      })();
      expect(outcome).toBe('failed');
      // It stopped (it would call again for ever): after the call in flight when the roles step failed.
      expect(count('createOrUpdateChannels')).toBeLessThanOrEqual(3);
      expect(count('updateGuildSettings')).toBe(0);
      expect(count('resumeLiveSync')).toBe(1);
      expect(endings).toHaveLength(1);
    });
  });
});
