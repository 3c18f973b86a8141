import { bucketRoute, FirstCallGate, type PacerClock, RequestPacer } from './request-pacer';

/** A clock that moves when the pacer sleeps, or when the test moves it on (`advanceTo`). */
function manualClock(): PacerClock & { sleeps: number[]; advanceTo(t: number): void } {
  let now = 0;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    sleep: (ms: number) => {
      sleeps.push(ms);
      now += ms;
      return Promise.resolve();
    },
    advanceTo: (t) => {
      now = Math.max(now, t);
    },
  };
}

/** The largest number of starts inside any window of `windowMs` (a window [t, t + windowMs)). */
function busiestWindow(starts: number[], windowMs: number): number {
  return Math.max(...starts.map((t) => starts.filter((s) => s >= t && s < t + windowMs).length));
}

describe('RequestPacer', () => {
  it('lets `limit` requests start at once, then one more each time the oldest leaves the window', async () => {
    const clock = manualClock();
    const pacer = new RequestPacer(3, 1_000, clock);
    const starts: number[] = [];
    await Promise.all(Array.from({ length: 7 }, () => pacer.acquire().then(() => starts.push(clock.now()))));
    expect(starts).toEqual([0, 0, 0, 1_000, 1_000, 1_000, 2_000]);
  });

  it('keeps every window of the given length within the limit, whatever its phase', async () => {
    const clock = manualClock();
    const starts: number[] = [];
    // Requests arrive every 7 ms, a burst that would overrun any fixed window out of phase.
    const pacer = new RequestPacer(50, 1_050, clock);
    for (let i = 0; i < 400; i++) {
      clock.advanceTo(i * 7);
      await pacer.acquire();
      starts.push(clock.now());
    }
    expect(busiestWindow(starts, 1_000)).toBeLessThanOrEqual(50);
    expect(busiestWindow(starts, 1_050)).toBe(50);
  });

  it('serves callers in the order they asked', async () => {
    const clock = manualClock();
    const pacer = new RequestPacer(1, 100, clock);
    const order: number[] = [];
    await Promise.all([1, 2, 3].map((n) => pacer.acquire().then(() => order.push(n))));
    expect(order).toEqual([1, 2, 3]);
    expect(clock.sleeps).toEqual([100, 100]);
  });

  it('refuses a limit that is not a positive integer', () => {
    expect(() => new RequestPacer(0, 1_000)).toThrow(RangeError);
  });
});

describe('FirstCallGate', () => {
  it('holds the other calls of a route until the first one is answered, then lets them run together', async () => {
    const gate = new FirstCallGate();
    const log: string[] = [];
    let answerFirst!: () => void;
    const first = gate.run('POST /guilds/1/roles', () => {
      log.push('first sent');
      return new Promise<void>((resolve) => (answerFirst = resolve)).then(() => log.push('first answered'));
    });
    const others = [2, 3].map((n) =>
      gate.run('POST /guilds/1/roles', () => {
        log.push(`call ${n} sent`);
        return Promise.resolve();
      }),
    );
    const elsewhere = gate.run('POST /guilds/2/roles', () => {
      log.push('other guild sent');
      return Promise.resolve();
    });
    await elsewhere;
    expect(log).toEqual(['first sent', 'other guild sent']);
    answerFirst();
    await Promise.all([first, ...others]);
    expect(log).toEqual(['first sent', 'other guild sent', 'first answered', 'call 2 sent', 'call 3 sent']);
  });

  it('releases the waiting calls when the first one fails, and passes the failure to its caller', async () => {
    const gate = new FirstCallGate();
    const failed = gate.run('PATCH /channels/5', () => Promise.reject(new Error('refused')));
    const next = gate.run('PATCH /channels/5', () => Promise.resolve('done'));
    await expect(failed).rejects.toThrow('refused');
    await expect(next).resolves.toBe('done');
  });
});

describe('bucketRoute', () => {
  it.each([
    ['post', '/guilds/111/roles', 'POST /guilds/111/roles'],
    ['patch', '/guilds/111/roles/222', 'PATCH /guilds/111/roles/:id'],
    ['put', '/channels/333/permissions/444', 'PUT /channels/333/permissions/:id'],
    ['delete', '/channels/333', 'DELETE /channels/333'],
    ['get', '/guilds/111/members/555', 'GET /guilds/111/members/:id'],
    ['post', '/users/@me/channels', 'POST /users/@me/channels'],
  ])('%s %s is keyed as %s', (method, path, route) => {
    expect(bucketRoute(method, path)).toBe(route);
  });
});
