import { Logger } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import type { DataSource } from 'typeorm';
import { expectNoRetryAfterStop, expectRetriesAfter } from '../../../test/support/retry-timer';
import { OutboxRelay } from './outbox.relay';

/** A LISTEN connection that the database refuses, each one counted. */
const listenConnections = { opened: 0 };
jest.mock('pg', () => ({
  Client: class {
    constructor() {
      listenConnections.opened++;
    }
    on(): void {}
    connect(): Promise<void> {
      return Promise.reject(new Error('connection refused'));
    }
    end(): Promise<void> {
      return Promise.resolve();
    }
  },
}));

/**
 * A relay on a scheduler of its own, started, once its first round and LISTEN connection were
 * tried; its rounds fail as with the broker down, or find nothing to relay.
 */
async function startedRelay(rounds: 'failing' | 'idle') {
  const scheduler = new SchedulerRegistry();
  const relay = new OutboxRelay({
    schema: 'test',
    dataSource: { query: () => Promise.resolve([]) } as unknown as DataSource,
    databaseUrl: 'postgres://outbox.invalid/test',
    publisher: { publish: () => Promise.resolve() },
    scheduler,
  });
  const round = jest.spyOn(relay, 'relayOnce');
  if (rounds === 'failing') round.mockRejectedValue(new Error('broker down'));
  else round.mockResolvedValue(0);
  relay.start();
  await jest.advanceTimersByTimeAsync(0);
  return { scheduler, relay, round };
}

describe(OutboxRelay.name, () => {
  // The failed rounds and connections are logged on purpose here.
  beforeAll(() => {
    Logger.overrideLogger(false);
  });
  beforeEach(() => {
    jest.useFakeTimers();
    listenConnections.opened = 0;
  });
  afterEach(() => jest.useRealTimers());

  it('retries a failed round after 100 ms, then 200 ms, as a retry on the scheduler', async () => {
    const { scheduler, relay, round } = await startedRelay('failing');
    expect(round).toHaveBeenCalledTimes(1);
    await expectRetriesAfter(
      { scheduler, name: 'outbox-retry(test)' },
      () => round.mock.calls.length,
      [100, 200],
    );

    round.mockResolvedValue(0);
    await jest.advanceTimersByTimeAsync(400);
    expect(round).toHaveBeenCalledTimes(4);
    expect(scheduler.getTimeouts()).not.toContain('outbox-retry(test)');
    await relay.stop();
  });

  it('opens LISTEN again a second after it was refused, as a retry on the scheduler', async () => {
    const { scheduler, relay } = await startedRelay('idle');
    expect(listenConnections.opened).toBe(1);
    expect(scheduler.getTimeouts()).toEqual(['outbox-listen(test)']);
    await expectRetriesAfter(
      { scheduler, name: 'outbox-listen(test)' },
      () => listenConnections.opened,
      [1_000],
    );
    await relay.stop();
  });

  it('leaves nothing on the scheduler once stopped, and tries nothing more', async () => {
    const { scheduler, relay, round } = await startedRelay('failing');
    expect(scheduler.getTimeouts().sort()).toEqual(['outbox-listen(test)', 'outbox-retry(test)']);
    expect(scheduler.getIntervals().sort()).toEqual(['outbox-relay(test)', 'outbox-retention(test)']);

    await expectNoRetryAfterStop(
      () => relay.stop(),
      scheduler,
      () => round.mock.calls.length,
    );
    expect(scheduler.getIntervals()).toEqual([]);
    expect(listenConnections.opened).toBe(1);
  });
});
