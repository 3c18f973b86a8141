import { shardOf } from '@lib/chat-platform';
import {
  GatewayCloseCodes,
  GatewayDispatchEvents,
  GatewayIntentBits,
  GatewayOpcodes,
} from 'discord-api-types/v10';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import { settledWithin } from '@lib/runtime';
import type { BotAccounts } from '../bot-accounts';
import type { FakeGuild } from '../platform-state';
import { type PlatformStore, isMember } from '../platform-store';
import { memberWire } from '../wire-format';
import { GatewayConnection, type GatewayProtocol } from './gateway-connection';
import type { GatewayDispatch } from './gateway-dispatch';
import type { IdentifyAttempt, IdentifyRefusal } from './gateway-limits';
import { guildCreateData, readyData } from './gateway-payloads';
import { GatewaySession } from './gateway-session';

export const GATEWAY_PATH = '/gateway';
/** How long a disconnected session can still be resumed. */
const RESUME_WINDOW_MS = 5 * 60_000;
/** How long a closing handshake may take before the socket is dropped. */
const CLOSE_DEADLINE_MS = 1000;
const ALL_INTENTS = Object.values(GatewayIntentBits)
  .filter((bit): bit is number => typeof bit === 'number')
  .reduce((all, bit) => all | bit, 0);
/** A client's usual close codes, and the one the fake uses for "connection lost, please resume". */
const NORMAL_CLOSURE = 1000;
const RESUMABLE_CLOSURE = GatewayCloseCodes.UnknownError;

/** One open gateway connection, as `FakeChatPlatform.gatewayConnections()` reports it. */
export interface GatewayConnectionInfo {
  /** Null until IDENTIFY or RESUME succeeds on this connection. */
  sessionId: string | null;
  /** The account the session is for. */
  userId: string | null;
  intents: number | null;
  /** The `s` of the last dispatch the session was sent. */
  sequence: number;
  /** The session's [shard id, shard count]. */
  shard: [number, number] | null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function tokenOf(data: Record<string, unknown>): string | undefined {
  return typeof data.token === 'string' ? data.token.replace(/^Bot /, '') : undefined;
}

/** `[shard_id, num_shards]`, default `[0, 1]`; undefined when invalid. */
function parseShard(value: unknown): [number, number] | undefined {
  if (value === undefined) return [0, 1];
  if (!Array.isArray(value) || value.length !== 2 || !value.every(Number.isInteger)) return undefined;
  const [id, count] = value as [number, number];
  return count >= 1 && id >= 0 && id < count ? [id, count] : undefined;
}

/**
 * The platform's gateway (API v10, JSON, no compression) on the fake's HTTP server: sessions for
 * the bot tokens the REST API takes, READY and GUILD_CREATE on IDENTIFY, RESUME with replay,
 * and the dispatches the fake's state changes produce, filtered by intents, shards, membership and
 * permissions as the platform does. It enforces the platform's sharding rules too: enough shards
 * for the account's guilds, and session starts and their pace. Like the platform, it lets several
 * sessions follow one shard at once.
 */
export class GatewayServer implements GatewayProtocol {
  private readonly sockets = new WebSocketServer({ noServer: true });
  private readonly connections = new Set<GatewayConnection>();
  private readonly sessions = new Map<string, GatewaySession>();

  constructor(
    private readonly store: PlatformStore,
    private readonly bots: BotAccounts,
    private readonly heartbeatIntervalMs: number,
    /** Each connection is sent op 7 RECONNECT this long after its IDENTIFY or RESUME; never if unset. */
    private readonly reconnectEveryMs?: number,
  ) {}

  /** For the HTTP server's `upgrade` event: only `GATEWAY_PATH` speaks WebSocket. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? '/', 'http://gateway');
    if (url.pathname !== GATEWAY_PATH) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    this.sockets.handleUpgrade(req, socket, head, (ws) => this.accept(ws, url.searchParams));
  }

  /** Sends each event to every session that should hear it, connected or waiting to resume. */
  dispatch(dispatches: GatewayDispatch[]): void {
    for (const dispatch of dispatches) {
      for (const session of this.sessions.values()) {
        if (session.receives(dispatch, this.store)) session.dispatch(dispatch.event, dispatch.data);
      }
    }
  }

  /** A guild the platform now has (the bot joined it): GUILD_CREATE to its members' sessions. */
  guildAvailable(guild: FakeGuild): void {
    for (const session of this.sessions.values()) this.sendGuild(session, guild);
  }

  connectionInfo(): GatewayConnectionInfo[] {
    return [...this.connections].map(({ session }) => ({
      sessionId: session?.id ?? null,
      userId: session?.identity.userId ?? null,
      intents: session?.identity.intents ?? null,
      sequence: session?.lastSequence ?? 0,
      shard: session?.identity.shard ?? null,
    }));
  }

  /**
   * Closes every connection as a lost connection would (4000): resumable, keeping each session
   * and what it is sent meanwhile, unless `resumable` is false, when the sessions end and a client's
   * RESUME is answered with INVALID_SESSION.
   */
  async disconnect(resumable: boolean): Promise<void> {
    if (!resumable) this.sessions.clear();
    await this.closeConnections(RESUMABLE_CLOSURE, 'Connection lost.', resumable);
  }

  /**
   * op 7 RECONNECT on every identified connection, as the platform sends now and then (before it
   * moves a connection): the client is to close and RESUME, and loses nothing.
   */
  requestReconnect(): void {
    for (const connection of this.connections) {
      if (connection.session) connection.sendOp(GatewayOpcodes.Reconnect, null);
    }
  }

  /**
   * The open connections turn zombie: no heartbeat ACKs and no dispatches (kept for a RESUME) until
   * their clients give up on them. Connections opened afterwards are healthy.
   */
  zombify(): void {
    for (const connection of this.connections) connection.zombie = true;
  }

  /** Ends every session and closes every connection normally (the fake is reset or stopping). */
  async closeAll(): Promise<void> {
    this.sessions.clear();
    await this.closeConnections(NORMAL_CLOSURE, 'The platform is going away.', false);
  }

  identify(connection: GatewayConnection, data: unknown): void {
    const attempt: IdentifyAttempt = { at: Date.now(), outcome: 'ready' };
    try {
      this.startSession(connection, isRecord(data) ? data : {}, attempt);
    } finally {
      this.store.gatewayLimits.attempted(attempt);
    }
  }

  /** IDENTIFY: READY and the session's GUILD_CREATEs, or the platform's refusal, noted in `attempt`. */
  private startSession(
    connection: GatewayConnection,
    identify: Record<string, unknown>,
    attempt: IdentifyAttempt,
  ): void {
    const closeWith = (code: GatewayCloseCodes, reason: string) => {
      attempt.outcome = code;
      connection.close(code, reason);
    };
    const token = tokenOf(identify);
    const userId = token === undefined ? undefined : this.bots.userIdFor(token);
    const user = userId === undefined ? undefined : this.store.users.get(userId);
    if (!user) return closeWith(GatewayCloseCodes.AuthenticationFailed, 'Authentication failed.');
    attempt.userId = user.id;
    const intents = identify.intents;
    if (
      typeof intents !== 'number' ||
      !Number.isInteger(intents) ||
      intents < 0 ||
      (intents & ~ALL_INTENTS) !== 0
    ) {
      return closeWith(GatewayCloseCodes.InvalidIntents, 'Invalid intent(s).');
    }
    // A privileged intent the bot's application has not enabled is refused, not left out.
    if ((intents & GatewayIntentBits.GuildMembers) !== 0 && this.store.withoutMembersIntent.has(user.id)) {
      return closeWith(GatewayCloseCodes.DisallowedIntents, 'Disallowed intent(s).');
    }
    const shard = parseShard(identify.shard);
    if (!shard) return closeWith(GatewayCloseCodes.InvalidShard, 'Invalid shard.');
    attempt.shard = shard;
    if (this.shardingRequired(user.id, shard[1])) {
      return closeWith(GatewayCloseCodes.ShardingRequired, 'Sharding required.');
    }
    const now = Date.now();
    const limits = this.store.gatewayLimits;
    const reason = limits.startRefusal(user.id, shard[0], now) ?? this.shardCountConflict(user.id, shard);
    if (reason === 'session_start_limit') {
      attempt.outcome = GatewayCloseCodes.AuthenticationFailed;
      return this.sessionStartsExhausted({ at: now, userId: user.id, shard, reason }, connection);
    }
    if (reason) {
      attempt.outcome = 'invalid_session';
      return this.refuse(connection, { at: now, userId: user.id, shard, reason });
    }
    limits.recordStart(user.id, shard[0], now);
    const threshold = typeof identify.large_threshold === 'number' ? identify.large_threshold : 50;
    this.forgetExpiredSessions(now);
    const session = new GatewaySession({
      userId: user.id,
      intents,
      shard,
      largeThreshold: Math.min(Math.max(threshold, 50), 250),
    });
    this.sessions.set(session.id, session);
    this.attach(connection, session);
    this.noteOverlap(session);
    const guilds = [...this.store.guilds.values()].filter((guild) => session.covers(guild.id, this.store));
    session.dispatch(
      GatewayDispatchEvents.Ready,
      readyData({
        user,
        guildIds: guilds.map((guild) => guild.id),
        sessionId: session.id,
        resumeUrl: this.store.gatewayUrl ?? '',
        shard,
      }),
    );
    for (const guild of guilds) this.sendGuild(session, guild);
  }

  /**
   * An IDENTIFY past the bot's session starts. Discord's docs ("Identifying"; "Session Start Limit
   * Object"): on hitting the limit every active session of the bot is terminated and its token is
   * reset (the owner gets an email). What the connections are closed with is undocumented; the fake
   * takes the stricter reading: 4004 Authentication failed, which is not resumable and is what any
   * later IDENTIFY or RESUME with the old token meets, while REST answers it 401.
   */
  private sessionStartsExhausted(refusal: IdentifyRefusal, connection: GatewayConnection): void {
    this.store.gatewayLimits.refuse(refusal);
    this.bots.resetToken(refusal.userId);
    const reason = 'Authentication failed.';
    for (const session of [...this.sessions.values()]) {
      if (session.identity.userId !== refusal.userId) continue;
      this.sessions.delete(session.id);
      if (session.attached instanceof GatewayConnection) {
        session.attached.close(GatewayCloseCodes.AuthenticationFailed, reason);
      }
    }
    connection.close(GatewayCloseCodes.AuthenticationFailed, reason);
  }

  resume(connection: GatewayConnection, data: unknown): void {
    const resume = isRecord(data) ? data : {};
    const token = tokenOf(resume);
    const userId = token === undefined ? undefined : this.bots.userIdFor(token);
    if (userId === undefined)
      return connection.close(GatewayCloseCodes.AuthenticationFailed, 'Authentication failed.');
    this.forgetExpiredSessions(Date.now());
    const session = typeof resume.session_id === 'string' ? this.sessions.get(resume.session_id) : undefined;
    const missed = session?.identity.userId === userId ? session.sentAfter(Number(resume.seq)) : undefined;
    if (!session || !missed) {
      // The client identifies afresh after this.
      if (session) this.sessions.delete(session.id);
      return connection.sendOp(GatewayOpcodes.InvalidSession, false);
    }
    this.attach(connection, session);
    this.noteOverlap(session);
    for (const text of missed) connection.send(text);
    session.dispatch(GatewayDispatchEvents.Resumed, {});
  }

  requestGuildMembers(connection: GatewayConnection, data: unknown): void {
    const session = connection.session!;
    const request = isRecord(data) ? data : {};
    const guildIds = ([] as unknown[]).concat(request.guild_id).filter((id) => typeof id === 'string');
    const userIds =
      request.user_ids === undefined
        ? undefined
        : ([] as unknown[]).concat(request.user_ids).filter((id) => typeof id === 'string');
    const query = typeof request.query === 'string' ? request.query.toLowerCase() : '';
    const limit = typeof request.limit === 'number' && request.limit > 0 ? request.limit : Infinity;
    for (const guildId of guildIds) {
      const guild = this.store.guilds.get(guildId);
      if (!guild || !session.covers(guildId, this.store)) continue;
      const members = userIds
        ? guild.members.filter((member) => userIds.includes(member.user_id))
        : guild.members
            .filter((member) => this.store.user(member.user_id).username.toLowerCase().startsWith(query))
            .slice(0, limit);
      session.dispatch(GatewayDispatchEvents.GuildMembersChunk, {
        guild_id: guild.id,
        members: members.map((member) => memberWire(member, this.store.user(member.user_id))),
        chunk_index: 0,
        chunk_count: 1,
        ...(userIds ? { not_found: userIds.filter((id) => !members.some((m) => m.user_id === id)) } : {}),
        ...(request.presences === true ? { presences: [] } : {}),
        ...(request.nonce !== undefined ? { nonce: request.nonce } : {}),
      });
    }
  }

  closed(connection: GatewayConnection, keepSession: boolean): void {
    this.connections.delete(connection);
    const session = connection.session;
    if (!session || session.attached !== connection) return;
    if (keepSession) session.detach(Date.now());
    else this.sessions.delete(session.id);
  }

  /** Too few shards: one of them would carry more of the account's guilds than the platform allows. */
  private shardingRequired(userId: string, shardCount: number): boolean {
    const { maxGuildsPerShard } = this.store.gatewayLimits.settings;
    const load = new Map<number, number>();
    for (const guild of this.store.guilds.values()) {
      if (!isMember(guild, userId)) continue;
      const shardId = shardOf(guild.id, shardCount);
      const guilds = (load.get(shardId) ?? 0) + 1;
      if (guilds > maxGuildsPerShard) return true;
      load.set(shardId, guilds);
    }
    return false;
  }

  /**
   * A live session of the account follows another shard count. A second session of the same shard
   * is not refused: the platform allows it (each session hears the shard's events), so keeping a
   * shard followed once is the client's own business.
   */
  private shardCountConflict(userId: string, shard: [number, number]): IdentifyRefusal['reason'] | undefined {
    const live = this.liveSessionsOf(userId);
    if (live.some((session) => session.identity.shard[1] !== shard[1])) return 'shard_count_mismatch';
    return undefined;
  }

  /** Notes a session now live beside others of its account on the same shard (allowed, see ShardOverlap). */
  private noteOverlap(session: GatewaySession): void {
    const { userId, shard } = session.identity;
    const others = this.liveSessionsOf(userId).filter(
      (other) =>
        other !== session && other.identity.shard[0] === shard[0] && other.identity.shard[1] === shard[1],
    );
    if (others.length === 0) return;
    this.store.gatewayLimits.overlapped({
      at: Date.now(),
      userId,
      shard: [...shard],
      sessionIds: [session.id, ...others.map((other) => other.id)],
    });
  }

  private liveSessionsOf(userId: string): GatewaySession[] {
    return [...this.sessions.values()].filter(
      (session) => session.identity.userId === userId && session.live,
    );
  }

  /** INVALID_SESSION (not resumable) on a connection that stays open: the client identifies later. */
  private refuse(connection: GatewayConnection, refusal: IdentifyRefusal): void {
    this.store.gatewayLimits.refuse(refusal);
    connection.sendOp(GatewayOpcodes.InvalidSession, false);
  }

  private accept(ws: WebSocket, params: URLSearchParams): void {
    const connection = new GatewayConnection(ws, this.heartbeatIntervalMs, this);
    this.connections.add(connection);
    if ((params.get('v') ?? '10') !== '10') {
      connection.close(GatewayCloseCodes.InvalidAPIVersion, 'Invalid API version.');
    } else if ((params.get('encoding') ?? 'json') !== 'json' || params.has('compress')) {
      connection.close(GatewayCloseCodes.DecodeError, 'Only JSON without compression is served.');
    }
  }

  /** A session has one connection: a resume on a new one takes it from the old, which is closed. */
  private attach(connection: GatewayConnection, session: GatewaySession): void {
    const previous = session.attached;
    connection.session = session;
    session.attach(connection);
    if (this.reconnectEveryMs !== undefined) connection.reconnectAfter(this.reconnectEveryMs);
    if (previous instanceof GatewayConnection && previous !== connection) {
      previous.session = undefined;
      previous.close(GatewayCloseCodes.SessionTimedOut, 'Session resumed elsewhere.');
    }
  }

  /** GUILD_CREATE, if the session asked for guild events and the guild is one of its. */
  private sendGuild(session: GatewaySession, guild: FakeGuild): void {
    const { userId, intents, largeThreshold } = session.identity;
    if ((intents & GatewayIntentBits.Guilds) === 0 || !session.covers(guild.id, this.store)) return;
    session.dispatch(
      GatewayDispatchEvents.GuildCreate,
      guildCreateData(guild, this.store.user(userId), largeThreshold, this.store.expressions.of(guild.id)),
    );
  }

  private forgetExpiredSessions(now: number): void {
    for (const [id, session] of this.sessions) {
      if (session.detachedAt !== undefined && now - session.detachedAt > RESUME_WINDOW_MS)
        this.sessions.delete(id);
    }
  }

  /** Closes every connection, and drops those whose closing handshake does not finish in time. */
  private async closeConnections(code: number, reason: string, keepSessions: boolean): Promise<void> {
    const closing = [...this.connections];
    if (closing.length === 0) return;
    for (const connection of closing) connection.close(code, reason, keepSessions);
    const inTime = await settledWithin(
      closing.map((c) => c.closed),
      CLOSE_DEADLINE_MS,
    );
    if (!inTime) for (const connection of closing) connection.terminate();
    await Promise.all(closing.map((c) => c.closed));
  }
}
