import type { SessionInfo } from '@discordjs/ws';
import { FakeChatPlatform } from '@lib/sandbox';
import type { SourceEvent } from '../guild-events';
import { GatewayShards } from './gateway-shards';
import type { ShardSessions } from './shard-sessions.repository';

/** The sessions table as a map; identify turns always free (the fake's pace is off here). */
class MemorySessions {
  readonly rows = new Map<string, SessionInfo>();

  load(count: number, id: number): Promise<SessionInfo | null> {
    return Promise.resolve(this.rows.get(`${count}/${id}`) ?? null);
  }

  save(session: SessionInfo): Promise<void> {
    this.rows.set(`${session.shardCount}/${session.shardId}`, session);
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

async function until(what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** GatewayShards against the fake platform's gateway, through the real @discordjs/ws. */
describe('GatewayShards', () => {
  const platform = new FakeChatPlatform({ gatewayHeartbeatIntervalMs: 5_000 });
  let sessions: MemorySessions;
  const opened: GatewayShards[] = [];

  function gatewayShards(): GatewayShards {
    const shards = new GatewayShards(
      { apiBaseUrl: `${platform.url}/api`, botToken: platform.botToken },
      sessions as unknown as ShardSessions,
    );
    opened.push(shards);
    return shards;
  }

  const botConnections = () =>
    platform.gatewayConnections().filter((connection) => connection.userId === platform.botUserId);

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

  it('hands a shard over: closed resumably, its session saved, and resumed by the next owner', async () => {
    const first = gatewayShards();
    await first.plan();
    first.connect(1, 2, () => undefined);
    await until('shard 1 identified', () => botConnections().some((c) => c.sessionId !== null));
    const [{ sessionId }] = botConnections();

    await first.close(1, true);
    expect(sessions.rows.get('2/1')).toMatchObject({ sessionId, shardId: 1, shardCount: 2 });

    const next = gatewayShards();
    await next.plan();
    next.connect(1, 2, () => undefined);
    await until('shard 1 resumed', () => botConnections().some((c) => c.sessionId === sessionId));
    expect(platform.identifyRefusals()).toEqual([]);
  });

  it('does not come back after being closed during the library’s pause before a reconnect', async () => {
    const shards = gatewayShards();
    await shards.plan();
    const events: SourceEvent[] = [];
    shards.connect(0, 2, (event) => events.push(event));
    await until('shard 0 identified', () => botConnections().some((c) => c.sessionId !== null));

    // The platform drops the connection: the library waits 500 ms, then resumes (refused, as the
    // session ended) and identifies again. Closed in that pause, the shard must stay closed.
    await platform.disconnectGateway({ resumable: false });
    await shards.close(0, false);
    const seen = events.length;
    await sleep(1_500);

    expect(botConnections()).toEqual([]);
    expect(events).toHaveLength(seen);
    expect(shards.open()).toEqual([]);
  });
});
