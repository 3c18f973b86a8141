import { bucketRoute, FirstCallGate, type PacerClock, RequestPacer } from './request-pacer';

/** A clock that moves when the pacer sleeps, or when the test moves it on (`advanceTo`). */
function manualClock(): PacerClock & { sleeps: number[]; advanceTo(t: number): void } {
  let now = 0;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    // Time moves on only after the callers let through so far have seen it (their callbacks run).
    sleep: (ms: number) => {
      sleeps.push(ms);
      return new Promise<void>((resolve) =>
        setImmediate(() => {
          now += ms;
          resolve();
        }),
      );
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
    const pacer = new RequestPacer(3, 1_000, { clock });
    const starts: number[] = [];
    await Promise.all(Array.from({ length: 7 }, () => pacer.acquire().then(() => starts.push(clock.now()))));
    expect(starts).toEqual([0, 0, 0, 1_000, 1_000, 1_000, 2_000]);
  });

  it('keeps every window of the given length within the limit, whatever its phase', async () => {
    const clock = manualClock();
    const starts: number[] = [];
    // Requests arrive every 7 ms, a burst that would overrun any fixed window out of phase.
    const pacer = new RequestPacer(50, 1_050, { clock });
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
    const pacer = new RequestPacer(1, 100, { clock });
    const order: number[] = [];
    await Promise.all([1, 2, 3].map((n) => pacer.acquire().then(() => order.push(n))));
    expect(order).toEqual([1, 2, 3]);
    expect(clock.sleeps).toEqual([100, 100]);
  });

  it('when the window is full, lets the route with the most work left go first', async () => {
    const clock = manualClock();
    const pacer = new RequestPacer(2, 1_000, { clock });
    const outstanding = new Map([
      ['few', 1],
      ['many', 40],
    ]);
    const order: string[] = [];
    const ask = (route: string) =>
      pacer
        .acquire(() => outstanding.get(route) ?? 0)
        .then(() => {
          order.push(route);
          outstanding.set(route, (outstanding.get(route) ?? 1) - 1);
        });
    // Two start at once; the others wait for the window, the busier route's first.
    await Promise.all(['few', 'few', 'few', 'many', 'few', 'many'].map(ask));
    expect(order).toEqual(['few', 'few', 'many', 'many', 'few', 'few']);
  });

  it('reads the weights when a place frees up, not when the caller asked', async () => {
    const clock = manualClock();
    const pacer = new RequestPacer(1, 100, { clock });
    let late = 0;
    const order: string[] = [];
    const waits = [
      pacer.acquire(() => 5).then(() => order.push('first')),
      pacer.acquire(() => 5).then(() => order.push('steady')),
      pacer.acquire(() => late).then(() => order.push('late')),
    ];
    late = 9;
    await Promise.all(waits);
    expect(order).toEqual(['first', 'late', 'steady']);
  });

  it('past the burst, spaces starts evenly at the same rate, within the window', async () => {
    const clock = manualClock();
    const pacer = new RequestPacer(5, 1_000, { burst: 2, clock });
    const starts: number[] = [];
    await Promise.all(Array.from({ length: 8 }, () => pacer.acquire().then(() => starts.push(clock.now()))));
    // Five in any second: the burst's second start makes the fifth spaced one wait for the window.
    expect(starts).toEqual([0, 0, 200, 400, 600, 1_000, 1_200, 1_400]);
    expect(busiestWindow(starts, 1_000)).toBeLessThanOrEqual(5);
  });

  it('when places come up one by one, gives each to the busiest route waiting at that moment', async () => {
    const clock = manualClock();
    const pacer = new RequestPacer(4, 1_000, { burst: 1, clock });
    const order: string[] = [];
    let busyLeft = 3;
    // The busy route asks again as soon as it is let through (its calls go one after another);
    // three light calls wait all along.
    const busy = async () => {
      while (busyLeft > 0) {
        await pacer.acquire(() => busyLeft + 1);
        order.push('busy');
        busyLeft--;
      }
    };
    await Promise.all([
      ...['a', 'b', 'c'].map((light) => pacer.acquire(() => 1).then(() => order.push(light))),
      busy(),
    ]);
    expect(order).toEqual(['a', 'busy', 'busy', 'busy', 'b', 'c']);
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
