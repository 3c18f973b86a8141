import { Logger } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { LIFT_RETRY_FIRST_MS, LockdownLifter } from './lockdown-lifter';
import type { LockdownRepository, LockdownRow } from './lockdown.repository';
import type { LockdownService } from './lockdown.service';

const row = (id: string) => ({ id, guild_id: `guild-${id}` }) as LockdownRow;

describe(LockdownLifter.name, () => {
  const due = jest.fn<Promise<LockdownRow[]>, [number, readonly string[]]>();
  const lift = jest.fn<Promise<LockdownRow>, [LockdownRow, unknown]>();
  let now = Date.parse('2026-11-29T12:00:00Z');
  let sut: LockdownLifter;

  beforeEach(() => {
    due.mockReset();
    lift.mockReset();
    jest.spyOn(Date, 'now').mockImplementation(() => now);
    jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    sut = new LockdownLifter(
      new SchedulerRegistry(),
      { due } as unknown as LockdownRepository,
      { lift } as unknown as LockdownService,
    );
  });

  afterEach(() => jest.restoreAllMocks());

  it('leaves a lockdown the platform refused out of the next passes, then tries it again', async () => {
    due.mockImplementation((_limit, skip) =>
      Promise.resolve([row('gone'), row('fine')].filter((r) => !skip.includes(r.id))),
    );
    lift.mockImplementation((r) =>
      r.id === 'gone' ? Promise.reject(new Error('Unknown Guild')) : Promise.resolve(r),
    );

    await sut.liftDue();
    expect(lift.mock.calls.map(([r]) => r.id)).toEqual(['gone', 'fine']);

    now += 5_000;
    await sut.liftDue();
    // The refused one does not take a place in the batch or a request of the bot's.
    expect(due.mock.calls[1][1]).toEqual(['gone']);
    expect(lift.mock.calls.map(([r]) => r.id)).toEqual(['gone', 'fine', 'fine']);

    now += LIFT_RETRY_FIRST_MS;
    await sut.liftDue();
    expect(due.mock.calls[2][1]).toEqual([]);
    expect(lift.mock.calls.map(([r]) => r.id)).toEqual(['gone', 'fine', 'fine', 'gone', 'fine']);

    // Refused again: twice as long before the next try.
    now += LIFT_RETRY_FIRST_MS + 1;
    await sut.liftDue();
    expect(due.mock.calls[3][1]).toEqual(['gone']);
  });

  it('forgets a refusal once the lockdown is lifted', async () => {
    let refuse = true;
    due.mockImplementation((_limit, skip) =>
      Promise.resolve([row('flaky')].filter((r) => !skip.includes(r.id))),
    );
    lift.mockImplementation((r) => (refuse ? Promise.reject(new Error('rate limited')) : Promise.resolve(r)));
    await sut.liftDue();
    refuse = false;
    now += LIFT_RETRY_FIRST_MS;
    await sut.liftDue();
    now += 1;
    await sut.liftDue();
    expect(due.mock.calls.map(([, skip]) => skip)).toEqual([[], [], []]);
    expect(lift).toHaveBeenCalledTimes(3);
  });
});
