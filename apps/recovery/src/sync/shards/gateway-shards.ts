import { Logger } from '@nestjs/common';
import { REST } from '@discordjs/rest';
import {
  type IIdentifyThrottler,
  type SessionInfo,
  WebSocketManager,
  WebSocketShardEvents,
  WebSocketShardStatus,
} from '@discordjs/ws';
import {
  GatewayCloseCodes,
  GatewayDispatchEvents,
  type GatewayDispatchPayload,
  GatewayIntentBits,
  type RESTGetAPIGatewayBotResult,
  Routes,
} from 'discord-api-types/v10';
import { setTimeout as sleep } from 'node:timers/promises';
import { toSourceEvent } from '../gateway-dispatch.mapper';
import type { SourceEvent } from '../guild-events';
import { liveSyncMetrics as metrics } from '../live-sync.metrics';
import type { ShardSessions } from './shard-sessions.repository';

/** A close handshake takes milliseconds; past this the connection is taken for closed (see `close`). */
const CLOSE_WAIT_MS = 2_000;
/** The platform allows one IDENTIFY per bucket per 5 s; the margin covers its clock against ours. */
const IDENTIFY_INTERVAL_MS = 5_000 + 250;
/**
 * Guilds: GUILD_CREATE, channels and roles; GuildModeration: bans and audit-log entries;
 * GuildMembers (privileged, enable it for the bot): kicks show as members leaving.
 */
const INTENTS = GatewayIntentBits.Guilds | GatewayIntentBits.GuildModeration | GatewayIntentBits.GuildMembers;
/** An identify turn that could not be taken (the database unreachable) is asked for again this much later. */
const IDENTIFY_TURN_RETRY_MS = 1_000;
/** The first connect of a shard failed: tried again this much later, unless `connectRetryMs` says otherwise. */
const CONNECT_RETRY_MS = 30_000;
/** Session starts held back by default: the platform resets the bot's token when they run out. */
export const DEFAULT_IDENTIFY_RESERVE = 50;
/** Held at the reserve, the session starts are looked at again no sooner than this. */
const RESERVE_RECHECK_MS = 100;

/**
 * The close codes the platform does not want a reconnect after ("Gateway Close Event Codes",
 * Reconnect: false): the same IDENTIFY would be refused the same way until an operator changes the
 * token, the shard count, the library or the bot's intents. A shard closed with one stops for good.
 */
export const FATAL_CLOSE_CODES: ReadonlyMap<number, string> = new Map([
  [GatewayCloseCodes.AuthenticationFailed, 'authentication failed'],
  [GatewayCloseCodes.InvalidShard, 'invalid shard'],
  [GatewayCloseCodes.ShardingRequired, 'sharding required'],
  [GatewayCloseCodes.InvalidAPIVersion, 'invalid API version'],
  [GatewayCloseCodes.InvalidIntents, 'invalid intent(s)'],
  [GatewayCloseCodes.DisallowedIntents, 'disallowed intent(s)'],
]);

/** Why a shard this replica holds is not followed, as readiness reports it. */
export type ShardTrouble =
  | { shardId: number; kind: 'stopped'; code: number; reason: string }
  | { shardId: number; kind: 'identify_held'; remaining: number; reserve: number; resetAt: Date };

/** One line for a shard's trouble. */
export function describeTrouble(trouble: ShardTrouble): string {
  return trouble.kind === 'stopped'
    ? `shard ${trouble.shardId} stopped: the gateway closed it with ${trouble.code} (${trouble.reason}), not retried`
    : `shard ${trouble.shardId} not identifying: ${trouble.remaining} session starts left, reserve ${trouble.reserve}, ` +
        `retried at ${trouble.resetAt.toISOString()}`;
}

export interface GatewayShardsOptions {
  /** The platform's REST base without the version (`DISCORD_API_URL`); the gateway's address is asked there. */
  apiBaseUrl: string;
  botToken: string;
  /**
   * After a failed first connect of a shard, the next try, and the longest a shard holding its
   * IDENTIFY waits before it reads the session starts again; 30 s unless a test wants it sooner.
   */
  connectRetryMs?: number;
  /**
   * `GATEWAY_IDENTIFY_RESERVE`: an IDENTIFY is sent only while `GET /gateway/bot` reports more
   * session starts remaining than this (default 50); otherwise the shard waits for `reset_after`.
   */
  identifyReserve?: number;
}

/** What `GET /gateway/bot` says about sharding. */
export interface GatewayPlan {
  /** The platform's recommended shard count. */
  shards: number;
  /** Identify buckets: shard `i` identifies in bucket `i % maxConcurrency`. */
  maxConcurrency: number;
}

interface OpenShard {
  manager: WebSocketManager;
  shardCount: number;
  /** The session as the connection last reported it, not yet saved when `dirty`. */
  session: SessionInfo | null;
  dirty: boolean;
  /** Closing to hand the session over: the library's "forget the session" is ignored then. */
  handingOver: boolean;
  closed: boolean;
  /**
   * The guilds on the shard, from READY and GUILD_CREATE/DELETE, saved with the session: whoever
   * resumes the session gets no GUILD_CREATEs, so it learns them from here.
   */
  guilds: Set<string>;
  guildsDirty: boolean;
  /** The sequence of the last dispatch handed to live sync: what a successor resumes after. */
  handled: number;
  /** Whether the current connection's HELLO came: until then its socket may still be opening. */
  helloSeen: boolean;
  /** Closed by the platform with a code of FATAL_CLOSE_CODES: no reconnect, until the shard is let go. */
  stopped?: { code: number };
  /** Not identifying: the session starts are down to the reserve until `resetAt`. */
  held?: { remaining: number; resetAt: Date };
}

/**
 * What a closed shard's connection attempts get. The library reconnects 500 ms after it drops a
 * connection itself (an INVALID_SESSION, a lost socket), and a shard destroyed during that pause,
 * or before its first attempt began, still makes that attempt afterwards. Such an attempt asks for
 * the session first, before it opens a socket: answered with a promise that never settles, it
 * stops there, socketless, and is collected with the shard. Without this, a shard handed to
 * another replica would come back here as a second follower.
 */
const NEVER = new Promise<never>(() => undefined);

/**
 * The session as far as live sync has been handed its events, and no further: the library records
 * a dispatch's sequence before passing the dispatch on, and a successor must replay that one too.
 */
function handedThrough(shard: OpenShard): SessionInfo {
  return { ...shard.session!, sequence: Math.min(shard.session!.sequence, shard.handled) };
}

/** Keeps a shard's guild list as the gateway announces it (a READY lists them all). */
function trackGuilds(shard: OpenShard, payload: GatewayDispatchPayload): void {
  if (payload.t === GatewayDispatchEvents.Ready) {
    shard.guilds = new Set(payload.d.guilds.map((guild) => guild.id));
  } else if (payload.t === GatewayDispatchEvents.GuildCreate) {
    shard.guilds.add(payload.d.id);
  } else if (payload.t === GatewayDispatchEvents.GuildDelete && !payload.d.unavailable) {
    shard.guilds.delete(payload.d.id);
  } else {
    return;
  }
  shard.guildsDirty = true;
}

/**
 * The bot's gateway connections, one per shard this replica follows, through @discordjs/ws (the
 * connection layer of discord.js: identify, heartbeats, resume, reconnect, and no caches: live
 * sync reads the raw dispatches, whose `d` is the platform's wire format). Two things are shared
 * with the other replicas through Postgres: each shard's session, so whoever follows the shard
 * next resumes it and the platform replays what it missed; and the identify turns, which the
 * platform counts for the whole bot.
 */
export class GatewayShards {
  private readonly logger = new Logger(GatewayShards.name);
  private readonly rest: REST;
  private readonly shards = new Map<number, OpenShard>();
  private maxConcurrency = 1;

  constructor(
    private readonly options: GatewayShardsOptions,
    private readonly sessions: ShardSessions,
  ) {
    this.rest = new REST({ version: '10', api: options.apiBaseUrl }).setToken(options.botToken);
  }

  async plan(): Promise<GatewayPlan> {
    const info = (await this.rest.get(Routes.gatewayBot())) as RESTGetAPIGatewayBotResult;
    this.maxConcurrency = Math.max(1, info.session_start_limit.max_concurrency);
    return { shards: info.shards, maxConcurrency: this.maxConcurrency };
  }

  /** The shards with a connection, up or (re)connecting, or stopped. */
  open(): number[] {
    return [...this.shards.keys()];
  }

  /** The shards held here but not followed: stopped for good, or holding back their IDENTIFY. */
  troubles(): ShardTrouble[] {
    const reserve = this.reserve;
    const troubles: ShardTrouble[] = [];
    for (const [shardId, shard] of this.shards) {
      if (shard.stopped) {
        const { code } = shard.stopped;
        troubles.push({ shardId, kind: 'stopped', code, reason: FATAL_CLOSE_CODES.get(code)! });
      } else if (shard.held) {
        troubles.push({ shardId, kind: 'identify_held', reserve, ...shard.held });
      }
    }
    return troubles.sort((a, b) => a.shardId - b.shardId);
  }

  private get retryMs(): number {
    return this.options.connectRetryMs ?? CONNECT_RETRY_MS;
  }

  private get reserve(): number {
    return this.options.identifyReserve ?? DEFAULT_IDENTIFY_RESERVE;
  }

  /**
   * Connects shard `shardId` of `shardCount`, resuming its saved session when there is one, and
   * returns at once: the connection is made, and remade, behind it.
   */
  connect(shardId: number, shardCount: number, listener: (event: SourceEvent) => void): void {
    if (this.shards.has(shardId)) return;
    const shard: OpenShard = {
      manager: undefined!,
      shardCount,
      session: null,
      dirty: false,
      handingOver: false,
      closed: false,
      guilds: new Set(),
      guildsDirty: false,
      handled: 0,
      helloSeen: false,
    };
    shard.manager = new WebSocketManager({
      token: this.options.botToken,
      intents: INTENTS,
      rest: this.rest,
      shardCount,
      shardIds: [shardId],
      buildIdentifyThrottler: () => this.identifyThrottler(shard),
      retrieveSessionInfo: (id) => (shard.closed ? NEVER : this.sessionToResume(shard, id)),
      updateSessionInfo: (_id, info) => this.sessionChanged(shardId, shard, info),
    });
    shard.manager.on(WebSocketShardEvents.Dispatch, ({ data }) => {
      if (shard.closed) return;
      trackGuilds(shard, data);
      this.dispatch(data, listener);
      shard.handled = data.s;
      shard.dirty = true;
    });
    // After a replay, the guilds the session carries as far as it was followed, here or elsewhere.
    shard.manager.on(WebSocketShardEvents.Resumed, () => {
      if (!shard.closed) listener({ type: 'guilds_known', platformGuildIds: [...shard.guilds] });
    });
    // An emitter's unhandled `error` would end the process; the connection recovers by itself.
    shard.manager.on(WebSocketShardEvents.Error, ({ error }) =>
      this.logger.warn({ err: String(error), shard_id: shardId }, 'gateway connection error'),
    );
    shard.manager.on(WebSocketShardEvents.Hello, () => (shard.helloSeen = true));
    shard.manager.on(WebSocketShardEvents.Closed, ({ code }) => {
      shard.helloSeen = false;
      if (shard.closed) return;
      this.logger.warn({ code, shard_id: shardId }, 'gateway connection closed');
      if (FATAL_CLOSE_CODES.has(code)) this.stop(shardId, shard, code);
    });
    this.shards.set(shardId, shard);
    this.start(shardId, shard);
  }

  /**
   * The library's first connect fails outright (the platform's gateway address unreadable, or no
   * session starts left for the day): tried again later while the shard stays this replica's, since
   * no other replica could connect it either; when the session starts are down to the reserve, once
   * they are back. A shard the platform closed for good is not tried again.
   */
  private start(shardId: number, shard: OpenShard): void {
    shard.manager.connect().catch(async (error: unknown) => {
      if (shard.closed || shard.stopped) return;
      const heldMs = await this.reserveHold(shardId, shard).catch(() => undefined);
      const retryMs = heldMs ?? this.retryMs;
      this.logger.error(
        { err: String(error), shard_id: shardId, retry_in_ms: retryMs },
        'gateway shard did not connect',
      );
      setTimeout(() => {
        if (!shard.closed && !shard.stopped) this.start(shardId, shard);
      }, retryMs).unref();
    });
  }

  /**
   * The platform closed the shard with a code it wants no reconnect after: the library has stopped
   * it already, and it stays stopped (its lease kept, so no other replica retries it either) until
   * it is let go. An alert, a metric and readiness say so: an operator has to act.
   */
  private stop(shardId: number, shard: OpenShard, code: number): void {
    if (shard.stopped) return;
    shard.stopped = { code };
    shard.held = undefined;
    metrics.identifyHeld.remove({ shard: String(shardId) });
    metrics.shardStopped.set({ shard: String(shardId), code: String(code) }, 1);
    this.logger.error(
      { alert: 'gateway_shard_stopped', shard_id: shardId, code, reason: FATAL_CLOSE_CODES.get(code) },
      'gateway shard stopped: the platform refused it, and it is not retried',
    );
  }

  /**
   * Undefined when an IDENTIFY may go out: `GET /gateway/bot` reports more session starts remaining
   * than the reserve. Otherwise how long to wait (until `reset_after`), the shard marked held and,
   * the first time, an alert: the platform resets the bot's token when the session starts run out.
   */
  private async reserveHold(shardId: number, shard: OpenShard): Promise<number | undefined> {
    const info = (await this.rest.get(Routes.gatewayBot())) as RESTGetAPIGatewayBotResult;
    const { remaining, total, reset_after: resetAfter } = info.session_start_limit;
    metrics.sessionStartsRemaining.set(remaining);
    if (remaining > this.reserve) {
      if (shard.held) {
        this.logger.log(
          { shard_id: shardId, remaining },
          'session starts above the reserve again: identifying',
        );
        metrics.identifyHeld.remove({ shard: String(shardId) });
      }
      shard.held = undefined;
      return undefined;
    }
    // Asked again at the reset, or sooner (the retry interval) in case the figures change meanwhile.
    const waitMs = Math.min(Math.max(resetAfter, RESERVE_RECHECK_MS), this.retryMs);
    if (!shard.held) {
      metrics.identifyHeld.set({ shard: String(shardId) }, 1);
      this.logger.error(
        {
          alert: 'gateway_identify_reserve_reached',
          shard_id: shardId,
          remaining,
          total,
          reserve: this.reserve,
          retry_in_ms: waitMs,
        },
        'gateway identify held back: the session starts are down to the reserve',
      );
    }
    shard.held = { remaining, resetAt: new Date(Date.now() + waitMs) };
    return waitMs;
  }

  /**
   * Closes a shard's connection. `handOver` keeps its session for the next owner (closed with
   * 4200, which the platform keeps resumable, and saved); otherwise the session ends with it.
   */
  async close(shardId: number, handOver: boolean): Promise<void> {
    const shard = this.shards.get(shardId);
    if (!shard) return;
    this.shards.delete(shardId);
    shard.closed = true;
    metrics.identifyHeld.remove({ shard: String(shardId) });
    if (shard.stopped)
      metrics.shardStopped.remove({ shard: String(shardId), code: String(shard.stopped.code) });
    shard.handingOver = handOver;
    await this.socketSettled(shard);
    const destroyed = shard.manager.destroy(
      handOver ? { code: 4200, reason: 'Handed to another replica' } : { reason: 'Live sync stopped' },
    );
    // Destroyed while it waits for READY, the library aborts that wait, whose handler destroys the
    // shard a second time and takes over the socket's close handler: the first destroy then never
    // resolves, though its close frame has gone out. So the wait is bounded.
    await Promise.race([destroyed, sleep(CLOSE_WAIT_MS)]);
    if (handOver && shard.session) await this.sessions.save(handedThrough(shard), [...shard.guilds]);
  }

  /**
   * Destroyed while its socket is still opening, the library drops the socket's error handler, and
   * a refused connection (a resume address that is gone) then ends the process with an unhandled
   * 'error'. So a shard that is connecting is closed once its socket has opened (HELLO) or failed.
   */
  private async socketSettled(shard: OpenShard): Promise<void> {
    const status = (await shard.manager.fetchStatus()).first();
    if (status !== WebSocketShardStatus.Connecting || shard.helloSeen) return;
    const settled = new Promise<void>((resolve) => {
      shard.manager.once(WebSocketShardEvents.Hello, () => resolve());
      shard.manager.once(WebSocketShardEvents.Closed, () => resolve());
    });
    await Promise.race([settled, sleep(CLOSE_WAIT_MS)]);
  }

  /** Saves every session that moved since the last call: a successor resumes from about here. */
  async saveSessions(): Promise<void> {
    for (const shard of this.shards.values()) {
      if (!(shard.dirty || shard.guildsDirty) || !shard.session) continue;
      const guilds = shard.guildsDirty ? [...shard.guilds] : undefined;
      shard.dirty = false;
      shard.guildsDirty = false;
      await this.sessions.save(handedThrough(shard), guilds);
    }
  }

  /** The session this process holds, else the one saved by the shard's last owner, with its guilds. */
  private async sessionToResume(shard: OpenShard, shardId: number): Promise<SessionInfo | null> {
    if (shard.session) return shard.session;
    const saved = await this.sessions.load(shard.shardCount, shardId);
    if (!saved) return null;
    shard.session = saved.session;
    shard.handled = saved.session.sequence;
    shard.guilds = new Set(saved.guildIds);
    return saved.session;
  }

  private sessionChanged(shardId: number, shard: OpenShard, info: SessionInfo | null): Promise<void> | void {
    if (info) {
      shard.session = info;
      shard.dirty = true;
      return;
    }
    if (shard.handingOver) return;
    shard.session = null;
    shard.dirty = false;
    return this.sessions
      .forget(shard.shardCount, shardId)
      .catch((error: unknown) =>
        this.logger.warn({ err: String(error), shard_id: shardId }, 'ended session not forgotten'),
      );
  }

  /**
   * Before each IDENTIFY: the session starts must be above the reserve (else the shard waits for
   * their reset, its socket open and heartbeating, RESUMEs unaffected); then one identify per
   * bucket per 5 s across every replica, the turns taken in Postgres.
   */
  private identifyThrottler(shard: OpenShard): IIdentifyThrottler {
    return {
      waitForIdentify: async (shardId, signal) => {
        for (;;) {
          if (shard.closed) return NEVER;
          const heldMs = await this.reserveHold(shardId, shard).catch((error: unknown) => {
            this.logger.warn(
              { err: String(error), shard_id: shardId },
              'session starts unreadable; asking again',
            );
            return this.retryMs;
          });
          if (heldMs === undefined) break;
          await sleep(heldMs, undefined, { signal });
        }
        const bucket = shardId % this.maxConcurrency;
        for (;;) {
          if (shard.closed) return NEVER;
          // Nothing but the abort may escape: on any other error the library reconnects, and
          // still sends this IDENTIFY afterwards, on the new connection beside that one's own.
          const waitMs = await this.sessions
            .takeIdentifyTurn(bucket, IDENTIFY_INTERVAL_MS)
            .catch((error: unknown) => {
              this.logger.warn(
                { err: String(error), shard_id: shardId },
                'identify turn not taken; trying again',
              );
              return IDENTIFY_TURN_RETRY_MS;
            });
          if (waitMs === 0) return;
          await sleep(waitMs, undefined, { signal });
        }
      },
    };
  }

  /** Called inside the library's packet handling: nothing may escape from here. */
  private dispatch(packet: GatewayDispatchPayload, listener: (event: SourceEvent) => void): void {
    try {
      const event = toSourceEvent(packet);
      if (event) listener(event);
    } catch (error) {
      const type = (packet as { t?: unknown } | null)?.t;
      this.logger.error(
        { err: String(error), dispatch: type },
        'gateway event dropped: it could not be read',
      );
    }
  }
}
