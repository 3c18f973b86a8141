import { Logger } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import type { DataSource } from 'typeorm';
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

function relayOn(scheduler: SchedulerRegistry): OutboxRelay {
  return new OutboxRelay({
    schema: 'test',
    dataSource: { query: () => Promise.resolve([]) } as unknown as DataSource,
    databaseUrl: 'postgres://outbox.invalid/test',
    publisher: { publish: () => Promise.resolve() },
    scheduler,
  });
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
    const scheduler = new SchedulerRegistry();
    const relay = relayOn(scheduler);
    const round = jest.spyOn(relay, 'relayOnce').mockRejectedValue(new Error('broker down'));
    relay.start();
    await jest.advanceTimersByTimeAsync(0);
    expect(round).toHaveBeenCalledTimes(1);
    expect(scheduler.getTimeouts()).toContain('outbox-retry(test)');
    await jest.advanceTimersByTimeAsync(100);
    expect(round).toHaveBeenCalledTimes(2);
    await jest.advanceTimersByTimeAsync(199);
    expect(round).toHaveBeenCalledTimes(2);
    await jest.advanceTimersByTimeAsync(1);
    expect(round).toHaveBeenCalledTimes(3);

    round.mockResolvedValue(0);
    await jest.advanceTimersByTimeAsync(400);
    expect(round).toHaveBeenCalledTimes(4);
    expect(scheduler.getTimeouts()).not.toContain('outbox-retry(test)');
    await relay.stop();
  });

  it('opens LISTEN again a second after it was refused, as a retry on the scheduler', async () => {
    const scheduler = new SchedulerRegistry();
    const relay = relayOn(scheduler);
    jest.spyOn(relay, 'relayOnce').mockResolvedValue(0);
    relay.start();
    await jest.advanceTimersByTimeAsync(0);
    expect(listenConnections.opened).toBe(1);
    expect(scheduler.getTimeouts()).toEqual(['outbox-listen(test)']);
    await jest.advanceTimersByTimeAsync(999);
    expect(listenConnections.opened).toBe(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(listenConnections.opened).toBe(2);
    await relay.stop();
  });

  it('leaves nothing on the scheduler once stopped, and tries nothing more', async () => {
    const scheduler = new SchedulerRegistry();
    const relay = relayOn(scheduler);
    const round = jest.spyOn(relay, 'relayOnce').mockRejectedValue(new Error('broker down'));
    relay.start();
    await jest.advanceTimersByTimeAsync(0);
    expect(scheduler.getTimeouts().sort()).toEqual(['outbox-listen(test)', 'outbox-retry(test)']);
    expect(scheduler.getIntervals().sort()).toEqual(['outbox-relay(test)', 'outbox-retention(test)']);

    await relay.stop();
    expect(scheduler.getTimeouts()).toEqual([]);
    expect(scheduler.getIntervals()).toEqual([]);
    const calls = round.mock.calls.length;
    await jest.advanceTimersByTimeAsync(60_000);
    expect(round).toHaveBeenCalledTimes(calls);
    expect(listenConnections.opened).toBe(1);
  });
});
