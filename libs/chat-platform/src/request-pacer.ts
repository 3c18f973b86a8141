import { setTimeout as sleep } from 'node:timers/promises';

export interface PacerClock {
  now(): number;
  sleep(ms: number): Promise<unknown>;
}

const SYSTEM_CLOCK: PacerClock = { now: Date.now, sleep: (ms) => sleep(ms) };

/**
 * At most `limit` request starts in any `windowMs`; when callers have to wait, the one whose route
 * has the most work left goes first.
 *
 * The platform's global limit (50 requests a second for the bot) is a window the platform opens on
 * its own clock. The REST client counts the same 50 in fixed windows of its own, opened on its
 * clock: the two windows are out of phase, so up to 100 requests can land in one of the platform's
 * windows and the excess comes back as global 429s, each a wasted round trip and a pause. Counting
 * over any window (the last `limit` starts are at least `windowMs` apart from the next) keeps every
 * window of the platform, whatever its phase, within the limit; `windowMs` carries a margin for
 * the requests' travel time.
 *
 * Which waiting caller goes first decides how long a batch of work takes: a route's own bucket
 * (e.g. channel creation, 10 a second) lets only so many of its calls through per window, so its
 * calls lost to the global limit are lost for good, while the calls of routes with little left can
 * fill any later gap. Serving the route with the most calls outstanding first (the longest job
 * first, as a scheduler for parallel machines does) keeps the busiest bucket at its own pace.
 * Equal weights go in the order they asked; a caller is never passed over by lighter ones.
 *
 * A route's calls go one after another (the REST client's queue per bucket waits for each answer),
 * so the busiest route is waiting at the pacer only between two of its answers. If the whole
 * window's places were handed out in one burst to whoever waits at that moment, it would find
 * none left and wait for the next window. Past `burst` starts in the window, starts are spaced
 * evenly (`windowMs / limit` apart, the same rate), so a place comes up every few milliseconds
 * and the busiest route takes it.
 */
export class RequestPacer {
  /** Start times of the last `limit` requests, oldest first. */
  private readonly starts: number[] = [];
  private readonly waiting: { weight: () => number; go: () => void }[] = [];
  private serving = false;

  private readonly burst: number;
  private readonly clock: PacerClock;

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    options: { burst?: number; clock?: PacerClock } = {},
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError('limit must be a positive integer');
    this.burst = Math.min(limit, options.burst ?? limit);
    this.clock = options.clock ?? SYSTEM_CLOCK;
  }

  /**
   * Resolves when the caller may start its request (the start is counted then). `weight`: the work
   * left on the caller's route, read each time a place frees up while the caller waits.
   */
  acquire(weight: () => number = () => 0): Promise<void> {
    return new Promise((go) => {
      this.waiting.push({ weight, go });
      void this.serve();
    });
  }

  /** One loop hands out places while callers wait; it sleeps only when the window is full. */
  private async serve(): Promise<void> {
    if (this.serving) return;
    this.serving = true;
    try {
      while (this.waiting.length > 0) {
        const wait = this.nextStart() - this.clock.now();
        if (wait > 0) {
          await this.clock.sleep(wait);
          continue;
        }
        if (this.starts.length >= this.limit) this.starts.shift();
        this.starts.push(this.clock.now());
        this.takeHeaviest().go();
      }
    } finally {
      this.serving = false;
    }
  }

  /** The earliest time the next request may start. */
  private nextStart(): number {
    const full = this.starts.length >= this.limit ? this.starts[0] + this.windowMs : 0;
    const now = this.clock.now();
    const inWindow = this.starts.filter((start) => start > now - this.windowMs).length;
    const spaced =
      inWindow >= this.burst ? this.starts[this.starts.length - 1] + this.windowMs / this.limit : 0;
    return Math.max(full, spaced);
  }

  private takeHeaviest(): { go: () => void } {
    let best = 0;
    let bestWeight = this.waiting[0].weight();
    for (let i = 1; i < this.waiting.length; i++) {
      const weight = this.waiting[i].weight();
      if (weight > bestWeight) [best, bestWeight] = [i, weight];
    }
    return this.waiting.splice(best, 1)[0];
  }
}

/** Past this many routes, the learnt set starts again (a long-lived process meets many channels). */
const LEARNT_MAX = 10_000;

/**
 * The first call of a route goes alone; the others wait for its answer.
 *
 * The REST client queues a route's calls by the bucket the platform names in its answers. Until the
 * first answer names it, calls queue under a stand-in key, and calls made after that answer queue
 * under the real bucket: two queues then spend one bucket, each unaware of the other, and the
 * platform answers 429 to the excess. Letting the first call of each route (method, path with its
 * major parameter, other ids left out, as the platform keys buckets) learn the bucket before the
 * rest start keeps every later call in one queue.
 */
export class FirstCallGate {
  private readonly learning = new Map<string, Promise<void>>();
  private readonly learnt = new Set<string>();

  async run<T>(route: string, call: () => Promise<T>): Promise<T> {
    while (!this.learnt.has(route)) {
      const first = this.learning.get(route);
      if (first) {
        await first;
        continue;
      }
      const answer = call();
      this.learning.set(
        route,
        answer.then(
          () => undefined,
          () => undefined,
        ),
      );
      try {
        return await answer;
      } finally {
        if (this.learnt.size >= LEARNT_MAX) this.learnt.clear();
        this.learnt.add(route);
        this.learning.delete(route);
      }
    }
    return call();
  }
}

/**
 * The route part of a path the platform keys its buckets by: the major parameter (the guild,
 * channel or webhook the path starts with) kept, every other id replaced.
 */
export function bucketRoute(method: string, path: string): string {
  const route = path.replace(
    /^\/(guilds|channels|webhooks)\/(\d+)|\/\d+/g,
    (segment, major: string | undefined) => (major === undefined ? '/:id' : segment),
  );
  return `${method.toUpperCase()} ${route}`;
}
