/** Numeric order of two snowflakes without BigInt (ids without leading zeros): a longer id is a later one. */
export function compareSnowflakes(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

/** The platform's epoch (2015-01-01T00:00:00Z); its ids carry their creation time from there. */
const PLATFORM_EPOCH_MS = 1_420_070_400_000n;
const TIMESTAMP_SHIFT = 22n;

/**
 * Monotonic snowflake ids shaped like the platform's (17-19 digits): the REST client recognises a
 * route's major parameter, and so its rate-limit bucket, only by that shape.
 */
export class SnowflakeGenerator {
  private last = 0n;

  constructor(private readonly now: () => number = Date.now) {}

  next(): string {
    const fromClock = (BigInt(this.now()) - PLATFORM_EPOCH_MS) << TIMESTAMP_SHIFT;
    this.last = fromClock > this.last ? fromClock : this.last + 1n;
    return this.last.toString();
  }

  /**
   * An id in a later millisecond than the last, for guilds: the platform shards a guild by its
   * id's timestamp, so guilds created in a loop would otherwise all fall on one shard, where real
   * guilds, created at different times, spread over them all.
   */
  nextSpread(): string {
    const fromClock = (BigInt(this.now()) - PLATFORM_EPOCH_MS) << TIMESTAMP_SHIFT;
    const nextMillisecond = ((this.last >> TIMESTAMP_SHIFT) + 1n) << TIMESTAMP_SHIFT;
    this.last = fromClock > nextMillisecond ? fromClock : nextMillisecond;
    return this.last.toString();
  }
}
