import { ApplicationFailure } from '@temporalio/activity';
import {
  failStoppedRestore,
  InProcessRestoreRun,
  inProcessRestoreActivities,
  SERVICE_STOPPED_MESSAGE,
  serviceStopped,
} from './in-process-restore-run';
import {
  fakeRestoreActivities as fakeActivities,
  NOTHING_DONE,
  STEP_DONE as DONE,
  UNSUCCESSFUL_END,
} from '../../restore/workflows/restore-activities.fixture';
import type {
  RestoreResume,
  RestoreWorkflowInput,
  StepOutcome,
} from '../../restore/workflows/restore-contract';

const INPUT: RestoreWorkflowInput = {
  jobId: 'job-1',
  scope: ['roles', 'channels', 'permission_overrides', 'guild_settings'],
  createPreRestoreSnapshot: false,
  totals: { CreateOrUpdateRoles: 1 },
};

/** Backoff waits recorded, not waited. */
function noWaits() {
  const waits: number[] = [];
  return {
    waits,
    sleep: (ms: number) => {
      waits.push(ms);
      return Promise.resolve();
    },
  };
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

/** Activities whose CreateOrUpdateRoles, once `running`, waits until the test lets it `finish`. */
function rolesHeldOpen() {
  const running = deferred<void>();
  const mayFinish = deferred<StepOutcome>();
  const fake = fakeActivities({
    createOrUpdateRoles: () => {
      running.resolve();
      return mayFinish.promise;
    },
  });
  return { fake, running: running.promise, finish: () => mayFinish.resolve(DONE) };
}

describe(InProcessRestoreRun.name, () => {
  describe('retry policy (RESTORE_ACTIVITY_OPTIONS)', () => {
    it('retries a failing step from 1 s doubling, and completes when an attempt succeeds', async () => {
      const fake = fakeActivities({
        createOrUpdateRoles: (call) =>
          call < 3
            ? Promise.reject(ApplicationFailure.retryable('502 Bad Gateway', 'PlatformUnavailable'))
            : Promise.resolve(DONE),
      });
      const time = noWaits();
      const sut = new InProcessRestoreRun(INPUT, fake.activities, { sleep: time.sleep });
      expect(await sut.begin()).toBe('completed');
      expect(fake.count('createOrUpdateRoles')).toBe(3);
      expect(time.waits).toEqual([1_000, 2_000]);
      expect(fake.calls.slice(-2)).toEqual(['resumeLiveSync', 'completeRestore']);
    });

    it('stops at once on a non-retryable failure and ends the job failed with its type', async () => {
      const fake = fakeActivities({
        deleteRemovedRoles: () =>
          Promise.reject(ApplicationFailure.nonRetryable('Missing Permissions', 'PermissionDenied')),
      });
      const time = noWaits();
      const sut = new InProcessRestoreRun(INPUT, fake.activities, { sleep: time.sleep });
      expect(await sut.begin()).toBe('failed');
      expect([fake.count('deleteRemovedRoles'), time.waits]).toEqual([1, []]);
      expect(fake.callsFrom('deleteRemovedRoles')).toEqual(['deleteRemovedRoles', ...UNSUCCESSFUL_END]);
      expect(fake.endings).toEqual([
        { jobId: 'job-1', status: 'failed', code: 'PermissionDenied', message: 'Missing Permissions' },
      ]);
    });

    it('fails the job after the tenth attempt, with the last failure', async () => {
      const fake = fakeActivities({
        updateGuildSettings: (call) =>
          Promise.reject(ApplicationFailure.retryable(`outage ${call}`, 'PlatformUnavailable')),
      });
      const time = noWaits();
      const sut = new InProcessRestoreRun(INPUT, fake.activities, { sleep: time.sleep });
      expect(await sut.begin()).toBe('failed');
      expect(fake.count('updateGuildSettings')).toBe(10);
      expect(time.waits).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000]);
      expect(fake.endings).toEqual([
        { jobId: 'job-1', status: 'failed', code: 'PlatformUnavailable', message: 'outage 10' },
      ]);
    });

    it('cancels the job with "guild deleted" when the guild is gone, as the workflow does', async () => {
      const fake = fakeActivities({
        createOrUpdateChannels: () =>
          Promise.reject(ApplicationFailure.nonRetryable('Unknown Guild', 'GuildNotFound')),
      });
      const sut = new InProcessRestoreRun(INPUT, fake.activities, { sleep: noWaits().sleep });
      expect(await sut.begin()).toBe('canceled');
      expect(fake.endings).toEqual([
        { jobId: 'job-1', status: 'canceled', code: 'guild_deleted', message: 'guild deleted' },
      ]);
    });
  });

  /** The steps that run side by side with the roles step. */
  const ROLES_PHASE = ['createOrUpdateRoles', 'createOrUpdateChannels', 'applyPermissionOverrides'];

  it('shows progress while a step runs, and on cancel lets it finish and skips the later steps', async () => {
    const { fake, running, finish } = rolesHeldOpen();
    const sut = new InProcessRestoreRun(INPUT, fake.activities);
    const outcome = sut.begin();
    await running;
    const summary = sut.progressSummary();
    expect(summary).toMatchObject({
      steps: expect.arrayContaining([
        expect.objectContaining({ name: 'DeleteRemovedRoles', status: 'done' }),
        expect.objectContaining({ name: 'CreateOrUpdateRoles', status: 'running', done: 0, total: 1 }),
      ]),
    });
    // The current step is the phase's first still running (the overwrite deletes may not be done).
    expect(summary.steps.find((step) => step.name === summary.current_step)?.status).toBe('running');

    sut.cancel();
    finish();
    expect(await outcome).toBe('canceled');
    // The channels and overwrites steps run beside the roles step (overlapped phases): they started
    // with it; nothing started after the cancel.
    expect(fake.callsFrom('createOrUpdateRoles')).toEqual([...ROLES_PHASE, ...UNSUCCESSFUL_END]);
    expect(fake.endings).toEqual([
      { jobId: 'job-1', status: 'canceled', code: 'canceled', message: 'Canceled by the user.' },
    ]);
    expect(sut.progressSummary().steps).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'CreateOrUpdateRoles', status: 'done', done: 1 }),
        expect.objectContaining({ name: 'UpdateGuildSettings', status: 'canceled' }),
      ]),
    );
  });

  it('when the process stops, finishes the running activity, starts no other, and ends the job failed', async () => {
    const stop = new AbortController();
    const { fake, running, finish } = rolesHeldOpen();
    const sut = new InProcessRestoreRun(INPUT, fake.activities, { stop: stop.signal });
    const outcome = sut.begin();
    await running;
    stop.abort(serviceStopped());
    finish();
    expect(await outcome).toBe('failed');
    expect(fake.callsFrom('createOrUpdateRoles')).toEqual([...ROLES_PHASE, ...UNSUCCESSFUL_END]);
    expect(fake.endings).toEqual([
      { jobId: 'job-1', status: 'failed', code: 'ServiceStopped', message: SERVICE_STOPPED_MESSAGE },
    ]);
  });

  describe('a stop during a wait for the platform', () => {
    const PAUSED: StepOutcome = {
      created: 5,
      updated: 0,
      deleted: 0,
      remaining: 7,
      // A day away, as a quota's wait can be (a timer beyond 24.8 days would fire at once).
      pause: { reason: 'role_creation_quota', until: new Date(Date.now() + 86_400_000).toISOString() },
    };

    function pausedRoles(handBack: (resume: RestoreResume) => Promise<void>) {
      const stop = new AbortController();
      const waiting = deferred<void>();
      const fake = fakeActivities({
        createOrUpdateRoles: (call) => {
          if (call === 1) setImmediate(() => waiting.resolve());
          return Promise.resolve(call === 1 ? PAUSED : DONE);
        },
      });
      const sut = new InProcessRestoreRun(INPUT, fake.activities, { stop: stop.signal, handBack });
      return { sut, fake, stop, waiting: waiting.promise };
    }

    it('keeps the wait, progress and counts for the next start and leaves the job as it is', async () => {
      const kept: RestoreResume[] = [];
      const { sut, fake, stop, waiting } = pausedRoles((resume) => {
        kept.push(resume);
        return Promise.resolve();
      });
      const outcome = sut.begin();
      await waiting;
      stop.abort(serviceStopped());
      await sut.stopped();

      expect(kept).toEqual([
        expect.objectContaining({
          waiting: expect.objectContaining({ step: 'CreateOrUpdateRoles', until: PAUSED.pause!.until }),
          summary: expect.objectContaining({ roles_created: 5 }),
        }),
      ]);
      expect(kept[0].progress.steps.find((step) => step.name === 'CreateOrUpdateRoles')).toMatchObject({
        done: 5,
      });
      expect(fake.endings).toEqual([]);
      expect(await Promise.race([outcome, Promise.resolve('still running')])).toBe('still running');
    });

    it('ends the job failed as any stopped run when the wait cannot be kept', async () => {
      const { sut, fake, stop, waiting } = pausedRoles(() => Promise.reject(new Error('db down')));
      const outcome = sut.begin();
      await waiting;
      stop.abort(serviceStopped());
      expect(await outcome).toBe('failed');
      expect(fake.endings).toEqual([
        { jobId: 'job-1', status: 'failed', code: 'ServiceStopped', message: SERVICE_STOPPED_MESSAGE },
      ]);
    });

    it('taken up by the next start: no second pre-restore snapshot, the rest of the wait, the counts go on', async () => {
      const fake = fakeActivities();
      const resume: RestoreResume = {
        waiting: {
          step: 'CreateOrUpdateRoles',
          reason: 'role_creation_quota',
          until: new Date(Date.now() - 1_000).toISOString(),
          message: 'waiting',
        },
        progress: new InProcessRestoreRun(INPUT, fake.activities).progressSummary(),
        summary: { ...NOTHING_DONE, roles_created: 5 },
      };
      const sut = new InProcessRestoreRun(
        { ...INPUT, createPreRestoreSnapshot: true, resume },
        fake.activities,
      );
      expect(await sut.begin()).toBe('completed');
      expect(fake.count('createPreRestoreSnapshot')).toBe(0);
      expect(fake.inputs[fake.calls.indexOf('completeRestore')]).toMatchObject({
        summary: { roles_created: 6 },
      });
    });
  });
});

describe(failStoppedRestore.name, () => {
  it('resumes live sync and ends the job failed with the service-stopped message', async () => {
    const fake = fakeActivities();
    await failStoppedRestore({ jobId: 'job-1' }, inProcessRestoreActivities(fake.activities));
    expect(fake.calls).toEqual(UNSUCCESSFUL_END);
    expect(fake.endings).toEqual([
      { jobId: 'job-1', status: 'failed', code: 'ServiceStopped', message: SERVICE_STOPPED_MESSAGE },
    ]);
  });

  it('still ends the job when live sync cannot be resumed, then reports that', async () => {
    const fake = fakeActivities({
      resumeLiveSync: () =>
        Promise.reject(ApplicationFailure.nonRetryable('no job', 'ErrRestoreJobNotFound')),
    });
    await expect(
      failStoppedRestore({ jobId: 'job-1' }, inProcessRestoreActivities(fake.activities)),
    ).rejects.toThrow('no job');
    expect(fake.calls).toEqual(UNSUCCESSFUL_END);
  });
});
