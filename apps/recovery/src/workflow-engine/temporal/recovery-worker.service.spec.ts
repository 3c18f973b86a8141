import { Logger } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { expectNoRetryAfterStop, expectRetriesAfter } from '../../../../../test/support/retry-timer';
import { createRecoveryWorker, type RecoveryWorker } from './recovery-worker';
import { RecoveryWorkerService } from './recovery-worker.service';

jest.mock('./recovery-worker', () => ({ createRecoveryWorker: jest.fn() }));

const create = jest.mocked(createRecoveryWorker);
const TEMPORAL = { address: 'temporal:7233', namespace: 'default', taskQueue: 'recovery' };
/** How many times the worker was tried. */
const tries = () => create.mock.calls.length;

function worker(): jest.Mocked<Pick<RecoveryWorker, 'run' | 'shutdown'>> {
  return {
    run: jest.fn(() => new Promise<void>(() => undefined)),
    shutdown: jest.fn(() => Promise.resolve()),
  };
}

describe(RecoveryWorkerService.name, () => {
  // The failed starts are logged on purpose here.
  beforeAll(() => {
    Logger.overrideLogger(false);
  });
  beforeEach(() => {
    jest.useFakeTimers();
    create.mockReset();
  });
  afterEach(() => jest.useRealTimers());

  it('tries again every 5 s while Temporal is not reachable, as a retry on the scheduler', async () => {
    const running = worker();
    create
      .mockRejectedValueOnce(new Error('connection refused'))
      .mockRejectedValueOnce(new Error('connection refused'))
      .mockResolvedValueOnce(running as unknown as RecoveryWorker);
    const scheduler = new SchedulerRegistry();
    const sut = new RecoveryWorkerService(true, {}, TEMPORAL, scheduler);
    sut.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(0);
    expect(create).toHaveBeenCalledTimes(1);
    expect(scheduler.getTimeouts()).toEqual(['recovery-worker-start']);
    await expectRetriesAfter({ scheduler, name: 'recovery-worker-start' }, tries, [5_000, 5_000]);
    expect(running.run).toHaveBeenCalledTimes(1);
    expect(scheduler.getTimeouts()).toEqual([]);

    await sut.beforeApplicationShutdown();
    expect(running.shutdown).toHaveBeenCalledTimes(1);
  });

  it('drops the try still waiting at shutdown', async () => {
    create.mockRejectedValue(new Error('connection refused'));
    const scheduler = new SchedulerRegistry();
    const sut = new RecoveryWorkerService(true, {}, TEMPORAL, scheduler);
    sut.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(0);
    expect(scheduler.getTimeouts()).toEqual(['recovery-worker-start']);

    await expectNoRetryAfterStop(() => sut.beforeApplicationShutdown(), scheduler, tries);
    expect(create).toHaveBeenCalledTimes(1);
  });

  it('starts nothing when this process runs no worker', async () => {
    const sut = new RecoveryWorkerService(false, {}, TEMPORAL, new SchedulerRegistry());
    sut.onApplicationBootstrap();
    await sut.beforeApplicationShutdown();
    expect(create).not.toHaveBeenCalled();
  });
});
