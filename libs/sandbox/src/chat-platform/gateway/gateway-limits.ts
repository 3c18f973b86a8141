import { BoundedLog } from '../bounded-log';

/** The platform's sharding figures for bots, as `FakeChatPlatform.setSharding` sets them. */
export interface ShardingSettings {
  /** The shard count `GET /gateway/bot` recommends. */
  shards: number;
  /** Shards whose `shard_id % maxConcurrency` differ may identify at the same time. */
  maxConcurrency: number;
  /** How long a bucket waits between accepted IDENTIFYs. */
  identifyIntervalMs: number;
  /** Session starts a bot has per window (`sessionStartWindowMs`). */
  sessionStartTotal: number;
  /**
   * How long a bot's session starts count against `sessionStartTotal`, from its first accepted
   * IDENTIFY: 24 hours on the platform; tests shorten it to see `remaining` come back.
   */
  sessionStartWindowMs: number;
  /** More of a bot's guilds than this on one shard, and IDENTIFY is closed with 4011. */
  maxGuildsPerShard: number;
}

export const DEFAULT_SHARDING: ShardingSettings = {
  shards: 1,
  maxConcurrency: 1,
  identifyIntervalMs: 5000,
  sessionStartTotal: 1000,
  sessionStartWindowMs: 24 * 60 * 60_000,
  maxGuildsPerShard: 2500,
};

/** An IDENTIFY (or RESUME) the platform answered with INVALID_SESSION instead of taking it. */
export interface IdentifyRefusal {
  /** Epoch ms. */
  at: number;
  userId: string;
  /** [shard id, shard count] of the session asked for. */
  shard: [number, number];
  /**
   * No session starts left (the platform then resets the bot's token, see
   * `GatewayServer.identify`); the shard's bucket identified less than `identifyIntervalMs` ago; or
   * a session follows another shard count. A second session of a shard that one already follows
   * is no reason: the platform allows it, and each of them hears the shard's events.
   */
  reason: 'session_start_limit' | 'identify_rate' | 'shard_count_mismatch';
}

/** An IDENTIFY the gateway received, and what it answered. */
export interface IdentifyAttempt {
  /** Epoch ms. */
  at: number;
  /** The token's account; undefined when the token was not one the platform takes. */
  userId?: string;
  /** [shard id, shard count] asked for; undefined when invalid. */
  shard?: [number, number];
  /** READY (a session started), INVALID_SESSION, or the code the connection was closed with. */
  outcome: 'ready' | 'invalid_session' | number;
}

/**
 * A session that started (IDENTIFY) or resumed while another session of the same account followed
 * the same shard: allowed, as on the platform, and noted so that tests can prove a client never does it.
 */
export interface ShardOverlap {
  /** Epoch ms. */
  at: number;
  userId: string;
  /** [shard id, shard count]. */
  shard: [number, number];
  /** The session that started or resumed, then the ones already following the shard. */
  sessionIds: string[];
}

/** `session_start_limit` of `GET /gateway/bot`. */
export interface SessionStartLimit {
  total: number;
  remaining: number;
  reset_after: number;
  max_concurrency: number;
}

interface SessionStarts {
  /** When the window opened: at its first accepted IDENTIFY. */
  windowStart: number;
  used: number;
  /** The last accepted IDENTIFY of each bucket. */
  lastByBucket: Map<number, number>;
}

/** What the platform allows a bot in starting gateway sessions, and the IDENTIFYs it refused. */
export class GatewayLimits {
  private current = DEFAULT_SHARDING;
  private readonly starts = new Map<string, SessionStarts>();
  private readonly refused: BoundedLog<IdentifyRefusal>;
  private readonly attempts: BoundedLog<IdentifyAttempt>;
  private readonly overlapping: BoundedLog<ShardOverlap>;

  constructor(logCapacity: number) {
    this.refused = new BoundedLog(logCapacity);
    this.attempts = new BoundedLog(logCapacity);
    this.overlapping = new BoundedLog(logCapacity);
  }

  get settings(): ShardingSettings {
    return this.current;
  }

  /** Merged over the defaults, not over the previous settings. */
  configure(options: Partial<ShardingSettings>): void {
    const settings = { ...DEFAULT_SHARDING, ...options };
    const { shards, maxConcurrency, maxGuildsPerShard, identifyIntervalMs, sessionStartTotal } = settings;
    if (!(settings.sessionStartWindowMs > 0)) throw new Error('sessionStartWindowMs must be positive');
    if (![shards, maxConcurrency, maxGuildsPerShard].every((n) => Number.isInteger(n) && n >= 1)) {
      throw new Error('shards, maxConcurrency and maxGuildsPerShard must be positive integers');
    }
    if (!(identifyIntervalMs >= 0) || !Number.isInteger(sessionStartTotal) || sessionStartTotal < 0) {
      throw new Error('identifyIntervalMs and sessionStartTotal must not be negative');
    }
    this.current = settings;
  }

  sessionStartLimit(userId: string, now: number): SessionStartLimit {
    const starts = this.startsOf(userId, now);
    const { sessionStartTotal, maxConcurrency } = this.current;
    return {
      total: sessionStartTotal,
      remaining: Math.max(0, sessionStartTotal - (starts?.used ?? 0)),
      reset_after: starts ? starts.windowStart + this.current.sessionStartWindowMs - now : 0,
      max_concurrency: maxConcurrency,
    };
  }

  /** Why an IDENTIFY for the shard may not start a session now, if it may not. */
  startRefusal(userId: string, shardId: number, now: number): IdentifyRefusal['reason'] | undefined {
    if (this.sessionStartLimit(userId, now).remaining === 0) return 'session_start_limit';
    const last = this.startsOf(userId, now)?.lastByBucket.get(shardId % this.current.maxConcurrency);
    if (last !== undefined && now - last < this.current.identifyIntervalMs) return 'identify_rate';
    return undefined;
  }

  /** An accepted IDENTIFY: one session start fewer, and its bucket waits from now. */
  recordStart(userId: string, shardId: number, now: number): void {
    let starts = this.startsOf(userId, now);
    if (!starts) {
      starts = { windowStart: now, used: 0, lastByBucket: new Map() };
      this.starts.set(userId, starts);
    }
    starts.used++;
    starts.lastByBucket.set(shardId % this.current.maxConcurrency, now);
  }

  refuse(refusal: IdentifyRefusal): void {
    this.refused.push(refusal);
  }

  refusals(): IdentifyRefusal[] {
    return this.refused.entries();
  }

  attempted(attempt: IdentifyAttempt): void {
    this.attempts.push(attempt);
  }

  identifies(): IdentifyAttempt[] {
    return this.attempts.entries();
  }

  overlapped(overlap: ShardOverlap): void {
    this.overlapping.push(overlap);
  }

  overlaps(): ShardOverlap[] {
    return this.overlapping.entries();
  }

  /** The default settings, and no session starts, refusals, identifies or overlaps. */
  clear(): void {
    this.current = DEFAULT_SHARDING;
    this.starts.clear();
    this.refused.clear();
    this.attempts.clear();
    this.overlapping.clear();
  }

  /** The user's session starts in the current window; undefined once the window has passed. */
  private startsOf(userId: string, now: number): SessionStarts | undefined {
    const starts = this.starts.get(userId);
    if (starts && now - starts.windowStart >= this.current.sessionStartWindowMs) {
      this.starts.delete(userId);
      return undefined;
    }
    return starts;
  }
}
