import type { SessionInfo } from '@discordjs/ws';
import { shardOf } from '@lib/chat-platform';
import { REST } from '@discordjs/rest';
import { FakeChatPlatform } from '@lib/sandbox';
import { Routes } from 'discord-api-types/v10';
import { type AddressInfo, createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { WebSocket } from 'ws';
import { waitFor } from '../../../../../test/support/wait';
import type { SourceEvent } from '../guild-events';
import { GatewayShards } from './gateway-shards';
import type { SavedShard, ShardSessions } from './shard-sessions.repository';

/** The sessions table as a map; identify turns always free (the fake's pace is off here). */
class MemorySessions {
  readonly rows = new Map<string, SavedShard>();

  load(count: number, id: number): Promise<SavedShard | null> {
    return Promise.resolve(this.rows.get(`${count}/${id}`) ?? null);
  }

  save(session: SessionInfo, guildIds?: string[]): Promise<void> {
    const key = `${session.shardCount}/${session.shardId}`;
    this.rows.set(key, { session, guildIds: guildIds ?? this.rows.get(key)?.guildIds ?? [] });
    return Promise.resolve();
  }

  forget(count: number, id: number): Promise<void> {
    this.rows.delete(`${count}/${id}`);
    return Promise.resolve();
  }

  takeIdentifyTurn(): Promise<number> {
    return Promise.resolve(0);
  }
}

/** GatewayShards against the fake platform's gateway, through the real @discordjs/ws. */
describe('GatewayShards', () => {
  const platform = new FakeChatPlatform({ gatewayHeartbeatIntervalMs: 5_000 });
  let sessions: MemorySessions;
  const opened: GatewayShards[] = [];

  function gatewayShards(
    options: { identifyReserve?: number } = {},
    on: FakeChatPlatform = platform,
  ): GatewayShards {
    const shards = new GatewayShards(
      { apiBaseUrl: `${on.url}/api`, botToken: on.botToken, connectRetryMs: 200, ...options },
      sessions as unknown as ShardSessions,
    );
    opened.push(shards);
    return shards;
  }

  const botConnections = (on: FakeChatPlatform = platform) =>
    on.gatewayConnections().filter((connection) => connection.userId === on.botUserId);

  /** The bot's IDENTIFYs the fake received, with what it answered. */
  const identifies = (on: FakeChatPlatform = platform) =>
    on
      .gatewayIdentifies()
      .filter((attempt) => attempt.userId === on.botUserId || attempt.userId === undefined);

  /** Deletes the guild's channel through REST (as its bot), for a CHANNEL_DELETE on the gateway. */
  async function deleteChannel(on: FakeChatPlatform, channelId: string): Promise<void> {
    await new REST({ api: `${on.url}/api` }).setToken(on.botToken).delete(Routes.channel(channelId));
  }

  /** A guild on the given shard of 2, with a channel to delete. */
  function guildOnShard(
    shardId: number,
    on: FakeChatPlatform = platform,
  ): { guildId: string; channelId: string } {
    for (let n = 0; ; n++) {
      const seeded = on.seedGuild({ name: `s${n}`, channels: [{ name: 'general' }] });
      if (shardOf(seeded.guildId, 2) === shardId)
        return { guildId: seeded.guildId, channelId: seeded.channels.general };
      on.deleteGuild(seeded.guildId);
    }
  }

  beforeAll(async () => {
    await platform.start();
  });

  beforeEach(() => {
    platform.reset();
    platform.setSharding({ shards: 2, identifyIntervalMs: 0 });
    sessions = new MemorySessions();
  });

  afterEach(async () => {
    for (const shards of opened.splice(0)) {
      for (const shardId of shards.open()) await shards.close(shardId, false);
    }
  });

  afterAll(async () => {
    await platform.stop();
  });

  it('hands a shard over: closed resumably, saved with its guilds, resumed by the next owner, who learns them', async () => {
    // Two guilds on shard 1 of 2 (ids are spread over the shards, though not strictly alternating).
    const onShard1: string[] = [];
    for (let n = 0; onShard1.length < 2; n++) {
      const { guildId } = platform.seedGuild({ name: `g${n}` });
      if (shardOf(guildId, 2) === 1) onShard1.push(guildId);
    }
    onShard1.sort();
    const first = gatewayShards();
    await first.plan();
    const followed: SourceEvent[] = [];
    first.connect(1, 2, (event) => followed.push(event));
    await waitFor(
      'shard 1 followed',
      () => followed.filter((e) => e.type === 'guild_available').length === 2,
    );
    const [{ sessionId }] = botConnections();
    await first.saveSessions();

    await first.close(1, true);
    const saved = sessions.rows.get('2/1')!;
    expect(saved.session).toMatchObject({ sessionId, shardId: 1, shardCount: 2 });
    expect([...saved.guildIds].sort()).toEqual(onShard1);

    // Meanwhile a guild is deleted: the replay tells the next owner, after the saved list.
    platform.deleteGuild(onShard1[0]);
    const next = gatewayShards();
    await next.plan();
    const events: SourceEvent[] = [];
    next.connect(1, 2, (event) => events.push(event));
    await waitFor(
      'shard 1 resumed and the deletion replayed',
      () =>
        events.some((e) => e.type === 'guilds_known') && events.some((e) => e.type === 'guild_unavailable'),
    );
    expect(botConnections().map((c) => c.sessionId)).toEqual([sessionId]);
    // The library hands on RESUMED before the replayed events it precedes have passed its own
    // awaits, so the order varies; what the events add up to does not.
    const known = new Set<string>();
    for (const event of events) {
      if (event.type === 'guilds_known') event.platformGuildIds.forEach((id) => known.add(id));
      if (event.type === 'guild_unavailable') known.delete(event.platformGuildId);
    }
    expect([...known]).toEqual([onShard1[1]]);
    expect(platform.identifyRefusals()).toEqual([]);
  }, 30_000);

  it('connects a shard once the platform has session starts again', async () => {
    platform.setSharding({ shards: 2, identifyIntervalMs: 0, sessionStartTotal: 0 });
    const shards = gatewayShards();
    await shards.plan();
    shards.connect(0, 2, () => undefined);
    await sleep(500);
    expect(botConnections().filter((c) => c.sessionId !== null)).toEqual([]);

    // The library keeps the platform's answer for 5 s when no reset time is given, then asks again.
    platform.setSharding({ shards: 2, identifyIntervalMs: 0 });
    await waitFor('shard 0 identified', () => botConnections().some((c) => c.sessionId !== null), {
      timeoutMs: 15_000,
    });
  }, 30_000);

  it('closes a shard whose saved resume address is gone while its socket is still opening', async () => {
    const deadPort = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo;
        server.close(() => resolve(port));
      });
    });
    await sessions.save({
      sessionId: 'a-session-of-another-gateway',
      sequence: 1,
      resumeURL: `ws://127.0.0.1:${deadPort}`,
      shardId: 0,
      shardCount: 2,
    });
    const shards = gatewayShards();
    await shards.plan();
    shards.connect(0, 2, () => undefined);
    await sleep(5); // the library is opening its socket to the dead address
    const uncaught: unknown[] = [];
    const record = (error: unknown) => uncaught.push(error);
    process.on('uncaughtException', record);
    try {
      await shards.close(0, true);
      await sleep(1_000);
    } finally {
      process.off('uncaughtException', record);
    }
    expect(uncaught).toEqual([]);
    expect(botConnections()).toEqual([]);
  }, 30_000);

  it('closes a shard still waiting for its READY, and it stays closed', async () => {
    const shards = gatewayShards();
    await shards.plan();
    shards.connect(0, 2, () => undefined);
    await waitFor('shard 0 identified at the platform', () =>
      botConnections().some((c) => c.sessionId !== null),
    );

    const closing = shards.close(0, true);
    await expect(Promise.race([closing.then(() => 'closed'), sleep(5_000).then(() => 'hung')])).resolves.toBe(
      'closed',
    );
    await sleep(1_500);
    expect(botConnections()).toEqual([]);
  }, 30_000);

  it('does not come back after being closed during the library’s pause before a reconnect', async () => {
    const shards = gatewayShards();
    await shards.plan();
    const events: SourceEvent[] = [];
    shards.connect(0, 2, (event) => events.push(event));
    await waitFor('shard 0 identified', () => botConnections().some((c) => c.sessionId !== null));

    // The platform drops the connection: the library waits 500 ms, then resumes (refused, as the
    // session ended) and identifies again. Closed in that pause, the shard must stay closed.
    await platform.disconnectGateway({ resumable: false });
    await shards.close(0, false);
    const seen = events.length;
    await sleep(1_500);

    expect(botConnections()).toEqual([]);
    expect(events).toHaveLength(seen);
    expect(shards.open()).toEqual([]);
  }, 30_000);
  it('stops a shard the platform closes with 4014 for good: no IDENTIFY again, reported as trouble', async () => {
    platform.setMembersIntent(false);
    const shards = gatewayShards();
    await shards.plan();
    shards.connect(0, 2, () => undefined);
    await waitFor('the IDENTIFY refused', () => identifies().length > 0);

    // Several times the retry interval (200 ms here, 30 s by default) without another IDENTIFY.
    await sleep(1_500);
    expect(identifies().map(({ outcome }) => outcome)).toEqual([4014]);
    expect(shards.troubles()).toEqual([
      { shardId: 0, kind: 'stopped', code: 4014, reason: 'disallowed intent(s)' },
    ]);
    expect(shards.open()).toEqual([0]);
    // Let go of, the shard's trouble goes with it.
    await shards.close(0, false);
    expect(shards.troubles()).toEqual([]);
  }, 30_000);

  it('stops a followed shard the platform closes with 4004 (its token reset when the session starts ran out)', async () => {
    platform.setSharding({ shards: 2, identifyIntervalMs: 0, sessionStartTotal: 2 });
    const shards = gatewayShards({ identifyReserve: 0 });
    await shards.plan();
    shards.connect(0, 2, () => undefined);
    await waitFor('shard 0 identified', () => botConnections().some((c) => c.sessionId !== null));
    // Someone else with the bot's token spends the last session starts: the platform resets the token.
    const other = gatewayShards({ identifyReserve: 0 });
    await other.plan();
    other.connect(1, 2, () => undefined);
    const extra = new WebSocket(`${platform.url.replace('http', 'ws')}/gateway?v=10&encoding=json`);
    await new Promise((resolve) => extra.once('message', resolve));
    await waitFor(
      'shard 1 identified',
      () => botConnections().filter((c) => c.sessionId !== null).length === 2,
    );
    extra.send(
      JSON.stringify({ op: 2, d: { token: platform.botToken, intents: 1, properties: {}, shard: [1, 2] } }),
    );

    await waitFor(
      'both shards stopped',
      () => shards.troubles().length === 1 && other.troubles().length === 1,
    );
    expect(platform.botTokenWasReset()).toBe(true);
    const seen = identifies().length;
    await sleep(1_500);
    expect(identifies()).toHaveLength(seen);
    expect(shards.troubles()).toEqual([
      { shardId: 0, kind: 'stopped', code: 4004, reason: 'authentication failed' },
    ]);
    extra.terminate();
  }, 30_000);

  it('holds its IDENTIFY while the session starts are down to the reserve, and identifies once they reset', async () => {
    platform.setSharding({
      shards: 2,
      identifyIntervalMs: 0,
      sessionStartTotal: 3,
      sessionStartWindowMs: 2_500,
    });
    const shards = gatewayShards({ identifyReserve: 2 });
    await shards.plan();
    shards.connect(0, 2, () => undefined);
    await waitFor('shard 0 identified', () => botConnections().some((c) => c.sessionId !== null));
    expect(shards.troubles()).toEqual([]);

    // The session ends: the shard must identify again, with 2 session starts left, the reserve.
    await platform.disconnectGateway({ resumable: false });
    await waitFor('the identify held', () => shards.troubles().length === 1);
    expect(shards.troubles()).toEqual([
      { shardId: 0, kind: 'identify_held', remaining: 2, reserve: 2, resetAt: expect.any(Date) },
    ]);
    expect(identifies().map(({ outcome }) => outcome)).toEqual(['ready']);

    await waitFor('shard 0 identified after the reset', () => identifies().length === 2, {
      timeoutMs: 10_000,
    });
    expect(identifies().map(({ outcome }) => outcome)).toEqual(['ready', 'ready']);
    await waitFor('the trouble gone', () => shards.troubles().length === 0);
  }, 30_000);

  it('resumes after an op 7 RECONNECT, losing no event', async () => {
    const { guildId, channelId } = guildOnShard(0);
    const shards = gatewayShards();
    await shards.plan();
    const events: SourceEvent[] = [];
    shards.connect(0, 2, (event) => events.push(event));
    await waitFor('shard 0 followed', () => events.some((e) => e.type === 'guild_available'));
    const [{ sessionId }] = botConnections();

    platform.requestGatewayReconnect();
    await deleteChannel(platform, channelId);
    await waitFor('resumed', () => events.some((e) => e.type === 'guilds_known'));
    await waitFor('the delete', () =>
      events.some(
        (e) => e.type === 'channel_delete' && e.platformGuildId === guildId && e.channelId === channelId,
      ),
    );
    expect(botConnections().map((c) => c.sessionId)).toEqual([sessionId]);
    expect(identifies()).toHaveLength(1);
  }, 30_000);

  it('notices a zombie connection (no heartbeat ACK) and resumes, losing no event', async () => {
    const quick = new FakeChatPlatform({ gatewayHeartbeatIntervalMs: 200 });
    await quick.start();
    try {
      quick.setSharding({ shards: 2, identifyIntervalMs: 0 });
      const { guildId, channelId } = guildOnShard(1, quick);
      const shards = gatewayShards({}, quick);
      await shards.plan();
      const events: SourceEvent[] = [];
      shards.connect(1, 2, (event) => events.push(event));
      await waitFor('shard 1 followed', () => events.some((e) => e.type === 'guild_available'));
      const [{ sessionId }] = botConnections(quick);

      quick.stopAckingHeartbeats();
      await deleteChannel(quick, channelId);
      await waitFor('resumed', () => events.some((e) => e.type === 'guilds_known'));
      await waitFor('the delete, replayed', () =>
        events.some(
          (e) => e.type === 'channel_delete' && e.platformGuildId === guildId && e.channelId === channelId,
        ),
      );
      expect(botConnections(quick).map((c) => c.sessionId)).toEqual([sessionId]);
      expect(identifies(quick)).toHaveLength(1);
      await shards.close(1, false);
    } finally {
      await quick.stop();
    }
  }, 30_000);
  it('waits out a failed identify turn (the database unreachable) and identifies once, on one connection', async () => {
    let failures = 1;
    const takeTurn = sessions.takeIdentifyTurn.bind(sessions);
    sessions.takeIdentifyTurn = () =>
      failures-- > 0 ? Promise.reject(new Error('timeout exceeded when trying to connect')) : takeTurn();
    const uncaught: unknown[] = [];
    const record = (error: unknown) => uncaught.push(error);
    process.on('uncaughtException', record);
    try {
      const shards = gatewayShards();
      await shards.plan();
      shards.connect(0, 2, () => undefined);
      await waitFor('shard 0 identified', () => identifies().some((attempt) => attempt.outcome === 'ready'), {
        timeoutMs: 15_000,
      });
      await sleep(1_000);
      expect(identifies().map(({ outcome }) => outcome)).toEqual(['ready']);
      expect(botConnections().filter((c) => c.sessionId !== null)).toHaveLength(1);
      expect(uncaught).toEqual([]);
    } finally {
      process.off('uncaughtException', record);
    }
  }, 30_000);
});
