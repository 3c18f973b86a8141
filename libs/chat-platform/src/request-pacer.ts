import { setTimeout as sleep } from 'node:timers/promises';

export interface PacerClock {
  now(): number;
  sleep(ms: number): Promise<unknown>;
}

const SYSTEM_CLOCK: PacerClock = { now: Date.now, sleep: (ms) => sleep(ms) };

/**
 * At most `limit` request starts in any `windowMs`, in the order they asked.
 *
 * The platform's global limit (50 requests a second for the bot) is a window the platform opens on
 * its own clock. The REST client counts the same 50 in fixed windows of its own, opened on its
 * clock: the two windows are out of phase, so up to 100 requests can land in one of the platform's
 * windows and the excess comes back as global 429s, each a wasted round trip and a pause. Counting
 * over any window (the last `limit` starts are at least `windowMs` apart from the next) keeps every
 * window of the platform, whatever its phase, within the limit; `windowMs` carries a margin for
 * the requests' travel time.
 */
export class RequestPacer {
  /** Start times of the last `limit` requests, oldest first. */
  private readonly starts: number[] = [];
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly clock: PacerClock = SYSTEM_CLOCK,
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError('limit must be a positive integer');
  }

  /** Resolves when the caller may start its request (the start is counted then). */
  acquire(): Promise<void> {
    const turn = this.queue.then(() => this.takeTurn());
    this.queue = turn;
    return turn;
  }

  private async takeTurn(): Promise<void> {
    if (this.starts.length >= this.limit) {
      const wait = this.starts[0] + this.windowMs - this.clock.now();
      if (wait > 0) await this.clock.sleep(wait);
      this.starts.shift();
    }
    this.starts.push(this.clock.now());
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
