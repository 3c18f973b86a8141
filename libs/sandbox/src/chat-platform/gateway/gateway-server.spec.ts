import { shardOf } from '@lib/chat-platform';
import { REST } from '@discordjs/rest';
import { PermissionFlagsBits as P, Routes } from 'discord-api-types/v10';
import {
  AuditLogEvent,
  Client,
  type ClientEvents,
  Events,
  GatewayIntentBits,
  type GuildAuditLogsEntry,
} from 'discord.js';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { WebSocket } from 'ws';
import { FakeChatPlatform } from '../fake-chat-platform';
import type { GuildSpec, SeededGuild } from '../guild-seed';
import { GatewayServer } from './gateway-server';
import { fakeForSuite } from '../../../../../test/support/loopback-fake';

const OWNER = '200000000000000001';
const RAIDER = '200000000000000002';
const ALICE = '200000000000000003';
const RAIDER_TOKEN = 'raider-bot-token';
const INTENTS = [GatewayIntentBits.Guilds, GatewayIntentBits.GuildModeration, GatewayIntentBits.GuildMembers];

function guildSpec(name = 'Gateway Guild'): GuildSpec {
  return {
    name,
    owner: { id: OWNER, username: 'owner' },
    // Lowest first, all under the bot's role: the raider outranks Member and Moderator.
    roles: [
      { name: 'Member', permissions: P.ViewChannel | P.SendMessages },
      { name: 'Moderator', permissions: P.KickMembers, color: 0x2ecc71 },
      { name: 'Raider', permissions: P.Administrator },
    ],
    categories: [
      {
        name: 'Staff',
        overwrites: [
          { role: '@everyone', deny: P.ViewChannel },
          { role: 'Moderator', allow: P.ViewChannel },
        ],
        channels: [{ name: 'mod-chat', topic: 'Staff only' }],
      },
    ],
    channels: [
      { name: 'general', topic: 'Anything goes' },
      { name: 'lounge', type: 'voice' },
    ],
    members: [
      { username: 'raider', id: RAIDER, roles: ['Raider'] },
      { username: 'alice', id: ALICE, roles: ['Member'] },
    ],
  };
}

/** Every emission of the event, in order. */
function record<K extends keyof ClientEvents>(client: Client, event: K): ClientEvents[K][] {
  const seen: ClientEvents[K][] = [];
  client.on(event, (...args) => seen.push(args));
  return seen;
}

/** Polls until the condition holds, failing after the deadline. */
async function until(condition: () => boolean, what: string, deadlineMs = 5000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

interface GatewayMessage {
  op: number;
  t: string | null;
  s: number | null;
  d: unknown;
}

/** A raw gateway socket past HELLO, keeping every message it receives. */
interface RawShard {
  socket: WebSocket;
  received: GatewayMessage[];
  /** Resolves with the close code. */
  closed: Promise<number>;
}

/** What an IDENTIFY or RESUME got: its READY's or RESUMED's session id, INVALID_SESSION, or a close code. */
type Outcome = { session: string } | 'INVALID_SESSION' | number;

/** The gateway behind a real discord.js Client, with a raider acting through a REST client of their own. */
describe(GatewayServer.name, () => {
  const platform = fakeForSuite(new FakeChatPlatform({ gatewayHeartbeatIntervalMs: 250 }));
  let seeded: SeededGuild;
  let raider: REST;
  let bot: REST;
  let clients: Client[] = [];
  let sockets: WebSocket[] = [];

  beforeAll(() => {
    raider = new REST({ api: `${platform.url}/api` }).setToken(RAIDER_TOKEN);
    bot = new REST({ api: `${platform.url}/api` }).setToken(platform.botToken);
  });
  beforeEach(() => {
    seeded = platform.seedGuild(guildSpec());
    platform.registerBotToken(RAIDER_TOKEN, RAIDER);
    // These clients identify at once (see `connect`); the sharding tests set their own pace.
    platform.setSharding({ identifyIntervalMs: 0 });
  });
  afterEach(async () => {
    await Promise.all(clients.map((client) => client.destroy()));
    clients = [];
    for (const socket of sockets) socket.terminate();
    sockets = [];
  });

  async function openShard(): Promise<RawShard> {
    const socket = new WebSocket(`${platform.url.replace('http', 'ws')}/gateway?v=10&encoding=json`);
    sockets.push(socket);
    const received: GatewayMessage[] = [];
    socket.on('message', (data: Buffer) => received.push(JSON.parse(data.toString()) as GatewayMessage));
    const closed = once(socket, 'close').then(([code]) => code as number);
    await until(() => received.length > 0, 'HELLO');
    return { socket, received, closed };
  }

  /** Sends IDENTIFY or RESUME and waits for what it got. */
  async function send(shard: RawShard, op: 2 | 6, d: Record<string, unknown>): Promise<Outcome> {
    const from = shard.received.length;
    let code: number | undefined;
    void shard.closed.then((closedWith) => (code = closedWith));
    shard.socket.send(JSON.stringify({ op, d: { token: platform.botToken, ...d } }));
    const answer = () =>
      shard.received
        .slice(from)
        .find((m) => m.op === 9 || (m.op === 0 && (m.t === 'READY' || m.t === 'RESUMED')));
    await until(() => answer() !== undefined || code !== undefined, 'an answer');
    const message = answer();
    if (!message) return code!;
    if (message.op === 9) return 'INVALID_SESSION';
    if (message.t === 'READY') return { session: (message.d as { session_id: string }).session_id };
    return { session: String(d.session_id) };
  }

  const identify = (shard: RawShard, ids: [number, number]) =>
    send(shard, 2, { intents: GatewayIntentBits.Guilds, properties: {}, shard: ids });

  /** Opens a socket and identifies it for the shard. */
  async function follow(ids: [number, number]): Promise<RawShard & { outcome: Outcome }> {
    const shard = await openShard();
    return { ...shard, outcome: await identify(shard, ids) };
  }

  async function resume(session: string, seq: number): Promise<RawShard & { outcome: Outcome }> {
    const shard = await openShard();
    return { ...shard, outcome: await send(shard, 6, { session_id: session, seq }) };
  }

  /** Closes with the code, or drops the socket (the server sees 1006) without one. */
  async function close(shard: RawShard, code?: number): Promise<void> {
    const before = platform.gatewayConnections().length;
    if (code === undefined) shard.socket.terminate();
    else shard.socket.close(code);
    await shard.closed;
    await until(() => platform.gatewayConnections().length < before, 'the server to see the close');
  }

  /** The guilds a raw shard received GUILD_CREATE for. */
  const createdGuildIds = (shard: RawShard) =>
    shard.received.filter((m) => m.t === 'GUILD_CREATE').map((m) => (m.d as { id: string }).id);

  async function connect(intents: GatewayIntentBits[] = INTENTS): Promise<Client> {
    const client = new Client({
      intents,
      rest: { api: `${platform.url}/api` },
      // discord.js spaces a shard's identifies 5 s apart, as the platform asks; these tests do not wait.
      ws: { buildIdentifyThrottler: () => ({ waitForIdentify: () => Promise.resolve() }) },
    });
    clients.push(client);
    await Promise.all([once(client, Events.ClientReady), client.login(platform.botToken)]);
    return client;
  }

  it('serves discord.js: it becomes ready with the seeded guild, its roles, channels and overwrites', async () => {
    const client = await connect();

    expect(client.user?.id).toBe(platform.botUserId);
    const guild = client.guilds.cache.get(seeded.guildId)!;
    expect(guild).toMatchObject({ name: 'Gateway Guild', ownerId: OWNER, memberCount: 4, available: true });
    expect(guild.roles.cache.map((role) => role.name).sort()).toEqual(
      ['@everyone', 'GuildKeeper', 'Member', 'Moderator', 'Raider'].sort(),
    );
    expect(guild.roles.cache.get(seeded.roles.Moderator)).toMatchObject({ color: 0x2ecc71, position: 2 });
    expect(guild.channels.cache.map((channel) => channel.name).sort()).toEqual(
      ['Staff', 'general', 'lounge', 'mod-chat'].sort(),
    );
    const modChat = guild.channels.cache.get(seeded.channels['mod-chat']);
    expect(modChat?.parentId).toBe(seeded.channels.Staff);
    const staff = guild.channels.cache.get(seeded.channels.Staff);
    expect(staff && 'permissionOverwrites' in staff && staff.permissionOverwrites.cache.size).toBe(2);
    expect(guild.members.me?.roles.cache.has(seeded.botRoleId)).toBe(true);
    expect(platform.gatewayConnections()).toEqual([
      {
        sessionId: expect.any(String),
        userId: platform.botUserId,
        intents:
          GatewayIntentBits.Guilds | GatewayIntentBits.GuildModeration | GatewayIntentBits.GuildMembers,
        sequence: 2,
        shard: [0, 1],
      },
    ]);
  });

  it('reports a raider’s deletions with the raider as executor and the reason sent', async () => {
    const client = await connect();
    const channelDeletes = record(client, Events.ChannelDelete);
    const roleDeletes = record(client, Events.GuildRoleDelete);
    const entries = record(client, Events.GuildAuditLogEntryCreate);

    await raider.delete(Routes.channel(seeded.channels.general), { reason: 'gg no re' });
    await raider.delete(Routes.guildRole(seeded.guildId, seeded.roles.Moderator));
    await until(() => entries.length === 2, 'two audit-log entries');

    expect(channelDeletes.map(([channel]) => channel.id)).toEqual([seeded.channels.general]);
    expect(roleDeletes.map(([role]) => role.id)).toEqual([seeded.roles.Moderator]);
    const summary = (entry: GuildAuditLogsEntry) => ({
      action: entry.action,
      executorId: entry.executorId,
      targetId: entry.targetId,
      reason: entry.reason,
    });
    expect(entries.map(([entry]) => summary(entry))).toEqual([
      {
        action: AuditLogEvent.ChannelDelete,
        executorId: RAIDER,
        targetId: seeded.channels.general,
        reason: 'gg no re',
      },
      {
        action: AuditLogEvent.RoleDelete,
        executorId: RAIDER,
        targetId: seeded.roles.Moderator,
        reason: null,
      },
    ]);
    expect(entries[1][1].id).toBe(seeded.guildId);
    // The removed role's overwrite goes from the category, as a knock-on channel update.
    const staff = client.channels.cache.get(seeded.channels.Staff);
    expect(staff && 'permissionOverwrites' in staff && staff.permissionOverwrites.cache.size).toBe(1);

    // The same entries through the REST API, as discord.js reads them.
    const logs = await client.guilds.cache.get(seeded.guildId)!.fetchAuditLogs({ user: RAIDER });
    expect(logs.entries.map((entry) => summary(entry))).toEqual(
      entries.map(([entry]) => summary(entry)).reverse(),
    );
  });

  it('reports a ban with guildBanAdd, the member leaving, and a MemberBanAdd entry', async () => {
    const client = await connect();
    const guild = client.guilds.cache.get(seeded.guildId)!;
    // Only the bot's own member comes with GUILD_CREATE; REQUEST_GUILD_MEMBERS brings the rest.
    expect((await guild.members.fetch()).size).toBe(4);
    const bans = record(client, Events.GuildBanAdd);
    const departures = record(client, Events.GuildMemberRemove);
    const entries = record(client, Events.GuildAuditLogEntryCreate);

    await raider.put(Routes.guildBan(seeded.guildId, ALICE), { reason: 'spam' });
    await until(() => entries.length === 1, 'the ban’s audit-log entry');

    expect(bans.map(([ban]) => ban.user.id)).toEqual([ALICE]);
    expect(departures.map(([member]) => member.id)).toEqual([ALICE]);
    expect(entries[0][0]).toMatchObject({
      action: AuditLogEvent.MemberBanAdd,
      executorId: RAIDER,
      targetId: ALICE,
      reason: 'spam',
    });
    expect(guild.memberCount).toBe(3);
    expect(platform.guild(seeded.guildId).members.map((m) => m.user_id)).not.toContain(ALICE);
    expect(await raider.get(Routes.guildBan(seeded.guildId, ALICE))).toMatchObject({
      reason: 'spam',
      user: { id: ALICE },
    });
  });

  it('reports a lifted ban with guildBanRemove and a MemberBanRemove entry', async () => {
    const client = await connect();
    await raider.put(Routes.guildBan(seeded.guildId, ALICE), { reason: 'spam' });
    const unbans = record(client, Events.GuildBanRemove);
    const entries = record(client, Events.GuildAuditLogEntryCreate);

    await raider.delete(Routes.guildBan(seeded.guildId, ALICE), { reason: 'appeal accepted' });
    await until(() => entries.length === 1, 'the unban’s audit-log entry');

    expect(unbans.map(([ban]) => ban.user.id)).toEqual([ALICE]);
    expect(entries[0][0]).toMatchObject({
      action: AuditLogEvent.MemberBanRemove,
      executorId: RAIDER,
      targetId: ALICE,
      reason: 'appeal accepted',
    });
    // Lifting a ban does not bring the user back.
    expect(platform.guild(seeded.guildId).members.map((m) => m.user_id)).not.toContain(ALICE);
  });

  it('sends only what the intents ask for, and audit-log entries only with VIEW_AUDIT_LOG', async () => {
    const guildsOnly = await connect([GatewayIntentBits.Guilds]);
    const channelEvents = record(guildsOnly, Events.ChannelDelete);
    const unwanted = record(guildsOnly, Events.GuildAuditLogEntryCreate);
    const roleCreates = record(guildsOnly, Events.GuildRoleCreate);

    await raider.delete(Routes.channel(seeded.channels.general));
    // A later event on the same connection: whatever the delete caused has arrived before it.
    await raider.post(Routes.guildRoles(seeded.guildId), { body: { name: 'fence' } });
    await until(() => roleCreates.length === 1, 'the role creation');

    expect(channelEvents).toHaveLength(1);
    expect(unwanted).toHaveLength(0);
    expect(platform.auditLog(seeded.guildId).map((entry) => entry.action_type)).toEqual([
      AuditLogEvent.ChannelDelete,
      AuditLogEvent.RoleCreate,
    ]);
  });

  it('resumes after a lost connection and replays what happened meanwhile', async () => {
    const client = await connect();
    const [before] = platform.gatewayConnections();
    const resumed = once(client, Events.ShardResume);
    const channelDeletes = record(client, Events.ChannelDelete);

    await platform.disconnectGateway();
    expect(platform.gatewayConnections()).toEqual([]);
    await raider.delete(Routes.channel(seeded.channels.lounge));
    await resumed;
    await until(() => channelDeletes.length === 1, 'the replayed delete');

    expect(platform.gatewayConnections()).toEqual([expect.objectContaining({ sessionId: before.sessionId })]);
    expect(client.channels.cache.has(seeded.channels.lounge)).toBe(false);
  });

  it('makes a client identify afresh when its session cannot be resumed', async () => {
    const client = await connect();
    const [before] = platform.gatewayConnections();
    const shardReadies = record(client, Events.ShardReady);

    await platform.disconnectGateway({ resumable: false });
    const second = platform.seedGuild(guildSpec('Joined Meanwhile'));
    await until(
      () => platform.gatewayConnections().some((c) => c.sessionId && c.sessionId !== before.sessionId),
      'a new session',
    );
    await until(() => client.guilds.cache.has(second.guildId), 'the new guild');

    // A fresh READY and GUILD_CREATEs: the guild joined meanwhile arrives whole.
    expect(shardReadies).toHaveLength(1);
    expect(client.guilds.cache.get(second.guildId)?.channels.cache.size).toBe(4);
  });

  it('sends GUILD_CREATE for a guild seeded while connected, and GUILD_DELETE when it goes', async () => {
    const client = await connect();
    const created = record(client, Events.GuildCreate);
    const deleted = record(client, Events.GuildDelete);

    const second = platform.seedGuild(guildSpec('Second'));
    await until(() => created.length === 1, 'guildCreate');
    platform.deleteGuild(second.guildId);
    await until(() => deleted.length === 1, 'guildDelete');

    expect(created[0][0].id).toBe(second.guildId);
    expect(deleted[0][0].id).toBe(second.guildId);
    expect(client.guilds.cache.has(second.guildId)).toBe(false);
  });

  it('refuses a wrong token: 401 on /gateway/bot, so login fails, and 4004 on IDENTIFY', async () => {
    const client = new Client({ intents: INTENTS, rest: { api: `${platform.url}/api` } });
    clients.push(client);
    await expect(client.login('not-the-token')).rejects.toThrow(/invalid token/i);

    const gateway = await raider.get(Routes.gatewayBot());
    expect(gateway).toEqual({
      url: `${platform.url.replace('http', 'ws')}/gateway`,
      shards: 1,
      session_start_limit: { total: 1000, remaining: 1000, reset_after: 0, max_concurrency: 1 },
    });
    const socket = new WebSocket(`${(gateway as { url: string }).url}?v=10&encoding=json`);
    const closed = once(socket, 'close') as Promise<[number, Buffer]>;
    const [hello] = (await once(socket, 'message')) as [Buffer];
    expect(JSON.parse(hello.toString())).toMatchObject({ op: 10, d: { heartbeat_interval: 250 } });
    socket.send(JSON.stringify({ op: 2, d: { token: 'not-the-token', intents: 1, properties: {} } }));
    const [code] = await closed;
    expect(code).toBe(4004);
  });

  it('refuses IDENTIFY with GUILD_MEMBERS (4014) while that privileged intent is off, and takes it without', async () => {
    platform.setMembersIntent(false);
    const identify = async (intents: number) => {
      const socket = new WebSocket(`${platform.url.replace('http', 'ws')}/gateway?v=10&encoding=json`);
      await once(socket, 'message');
      socket.send(JSON.stringify({ op: 2, d: { token: platform.botToken, intents, properties: {} } }));
      const [message] = (await Promise.race([once(socket, 'message'), once(socket, 'close')])) as [
        Buffer | number,
      ];
      socket.close();
      return typeof message === 'number' ? message : (JSON.parse(message.toString()) as { t: string }).t;
    };

    expect(await identify(GatewayIntentBits.Guilds | GatewayIntentBits.GuildMembers)).toBe(4014);
    expect(await identify(GatewayIntentBits.Guilds)).toBe('READY');
  });

  it('closes its connections when it stops, and starts again', async () => {
    const other = new FakeChatPlatform({ gatewayHeartbeatIntervalMs: 250 });
    const { url: otherUrl } = await other.start();
    const socket = new WebSocket(`${otherUrl.replace('http', 'ws')}/gateway?v=10&encoding=json`);
    const closed = once(socket, 'close') as Promise<[number, Buffer]>;
    await once(socket, 'message');
    expect(other.gatewayConnections()).toHaveLength(1);

    await other.stop();

    expect((await closed)[0]).toBe(1000);
    expect(other.gatewayConnections()).toEqual([]);
    await other.start();
    await other.stop();
  });

  it('sends op 7 RECONNECT on request, and the session resumes on a new connection with nothing lost', async () => {
    const shard = await openShard();
    const ready = await identify(shard, [0, 1]);
    expect(ready).toEqual({ session: expect.any(String) });
    // Before an identify there is no session to reconnect: nothing is sent.
    const unidentified = await openShard();

    platform.requestGatewayReconnect();
    await until(() => shard.received.some((m) => m.op === 7), 'op 7');
    expect(unidentified.received.map((m) => m.op)).toEqual([10]);
    const seq = Math.max(...shard.received.map((m) => m.s ?? 0));
    shard.socket.close(4200);
    await shard.closed;
    const channels = (await raider.get(Routes.guildChannels(seeded.guildId))) as {
      id: string;
      type: number;
    }[];
    await raider.delete(Routes.channel(channels.find((channel) => channel.type === 0)!.id));

    const resumed = await resume((ready as { session: string }).session, seq);
    expect(resumed.outcome).toEqual(ready);
    const replayed = resumed.received.filter((m) => m.op === 0).map((m) => m.t);
    expect(replayed).toContain('CHANNEL_DELETE');
    expect(replayed.at(-1)).toBe('RESUMED');
  });

  it('sends op 7 RECONNECT by itself once a connection has lasted its interval', async () => {
    const other = new FakeChatPlatform({ gatewayHeartbeatIntervalMs: 250, gatewayReconnectEveryMs: 200 });
    const { url: otherUrl } = await other.start();
    try {
      const socket = new WebSocket(`${otherUrl.replace('http', 'ws')}/gateway?v=10&encoding=json`);
      const ops: number[] = [];
      socket.on('message', (data: Buffer) => ops.push((JSON.parse(data.toString()) as GatewayMessage).op));
      await until(() => ops.length > 0, 'HELLO');
      await sleep(300);
      expect(ops).toEqual([10]);
      socket.send(JSON.stringify({ op: 2, d: { token: other.botToken, intents: 1, properties: {} } }));
      await until(() => ops.includes(7), 'op 7');
      expect(ops.filter((op) => op === 7)).toHaveLength(1);
      socket.terminate();
    } finally {
      await other.stop();
    }
  });

  it('stops acknowledging heartbeats and passing events on when zombied; a RESUME gets what was withheld', async () => {
    const shard = await openShard();
    const ready = (await identify(shard, [0, 1])) as { session: string };
    const acks = () => shard.received.filter((m) => m.op === 11).length;
    shard.socket.send(JSON.stringify({ op: 1, d: null }));
    await until(() => acks() === 1, 'an ACK');

    platform.stopAckingHeartbeats();
    const seq = Math.max(...shard.received.map((m) => m.s ?? 0));
    const channels = (await raider.get(Routes.guildChannels(seeded.guildId))) as {
      id: string;
      type: number;
    }[];
    await raider.delete(Routes.channel(channels.find((channel) => channel.type === 0)!.id));
    shard.socket.send(JSON.stringify({ op: 1, d: seq }));
    await sleep(300);
    expect(acks()).toBe(1);
    expect(shard.received.some((m) => m.t === 'CHANNEL_DELETE')).toBe(false);

    // The client gives up on the connection as the platform's docs say: a non-1000 close, a RESUME.
    shard.socket.close(4200);
    await shard.closed;
    const resumed = await resume(ready.session, seq);
    expect(resumed.outcome).toEqual(ready);
    const replayed = resumed.received.filter((m) => m.op === 0).map((m) => m.t);
    expect(replayed).toContain('CHANNEL_DELETE');
    expect(replayed.at(-1)).toBe('RESUMED');
    resumed.socket.send(JSON.stringify({ op: 1, d: seq + 2 }));
    await until(() => resumed.received.some((m) => m.op === 11), 'an ACK on the new connection');
  });

  describe('sharding', () => {
    /** Guilds seeded in a row, after the suite's own. */
    const seedMore = (count: number) =>
      Array.from({ length: count }, (_, i) => platform.seedGuild(guildSpec(`Guild ${i}`)).guildId);

    it('answers /gateway/bot with the recommended shards, and counts session starts down', async () => {
      platform.setSharding({ shards: 4, maxConcurrency: 2, sessionStartTotal: 10, identifyIntervalMs: 0 });
      expect(await bot.get(Routes.gatewayBot())).toMatchObject({
        shards: 4,
        session_start_limit: { total: 10, remaining: 10, reset_after: 0, max_concurrency: 2 },
      });

      expect((await follow([0, 4])).outcome).toEqual({ session: expect.any(String) });
      expect((await follow([1, 4])).outcome).toEqual({ session: expect.any(String) });
      // A refused identify (another shard count than the live sessions') starts no session.
      expect((await follow([1, 3])).outcome).toBe('INVALID_SESSION');

      const { session_start_limit: limit } = (await bot.get(Routes.gatewayBot())) as {
        session_start_limit: { remaining: number; reset_after: number };
      };
      expect(limit.remaining).toBe(8);
      expect(limit.reset_after).toBeGreaterThan(23 * 3600_000);
      expect(limit.reset_after).toBeLessThanOrEqual(24 * 3600_000);
      // Each bot has its own.
      expect(await raider.get(Routes.gatewayBot())).toMatchObject({ session_start_limit: { remaining: 10 } });
    });

    it('ends every session of the bot with 4004 and resets its token once the session starts are used up', async () => {
      platform.setSharding({ shards: 2, sessionStartTotal: 1, identifyIntervalMs: 0 });
      const live = await follow([0, 2]);
      expect(live.outcome).toEqual({ session: expect.any(String) });
      const raiderShard = await openShard();
      expect(await send(raiderShard, 2, { token: RAIDER_TOKEN, intents: 1, properties: {} })).toEqual({
        session: expect.any(String),
      });

      const over = await follow([1, 2]);
      expect(over.outcome).toBe(4004);
      // The live session ends too, not resumable: its token is no longer the bot's.
      expect(await live.closed).toBe(4004);
      expect((await resume((live.outcome as { session: string }).session, 1)).outcome).toBe(4004);
      // A REST client of its own: @discordjs/rest forgets a token that got a 401.
      const resetBot = new REST({ api: `${platform.url}/api` }).setToken(platform.botToken);
      await expect(resetBot.get(Routes.gatewayBot())).rejects.toThrow(/401|Unauthorized/);
      expect(platform.botTokenWasReset()).toBe(true);
      expect(platform.identifyRefusals()).toEqual([
        { at: expect.any(Number), userId: platform.botUserId, shard: [1, 2], reason: 'session_start_limit' },
      ]);
      expect(platform.gatewayIdentifies().map(({ shard, outcome }) => [shard, outcome])).toEqual([
        [[0, 2], 'ready'],
        [[0, 1], 'ready'],
        [[1, 2], 4004],
      ]);
      // Another bot's session and token are untouched.
      expect(platform.gatewayConnections().map((c) => c.userId)).toEqual([RAIDER]);
      expect(platform.botTokenWasReset(RAIDER)).toBe(false);

      platform.reset();
      expect(platform.botTokenWasReset()).toBe(false);
      seeded = platform.seedGuild(guildSpec());
      expect((await follow([0, 1])).outcome).toEqual({ session: expect.any(String) });
    });

    it('gives the session starts back once their window has passed', async () => {
      platform.setSharding({ sessionStartTotal: 1, sessionStartWindowMs: 300, identifyIntervalMs: 0 });
      await close(await follow([0, 1]), 1000);
      const limit = () =>
        bot.get(Routes.gatewayBot()) as Promise<{
          session_start_limit: { remaining: number; reset_after: number };
        }>;
      const used = (await limit()).session_start_limit;
      expect(used.remaining).toBe(0);
      expect(used.reset_after).toBeGreaterThan(0);
      expect(used.reset_after).toBeLessThanOrEqual(300);

      await sleep(used.reset_after + 1);
      expect((await limit()).session_start_limit).toMatchObject({ remaining: 1, reset_after: 0 });
      expect((await follow([0, 1])).outcome).toEqual({ session: expect.any(String) });
    });

    it('closes an identify with 4011 when a shard would carry more guilds than allowed', async () => {
      seedMore(2);
      platform.seedGuild({ ...guildSpec('Without the bot'), bot: { member: false } });
      platform.setSharding({ maxGuildsPerShard: 2, identifyIntervalMs: 0 });

      const unsharded = await follow([0, 1]);
      expect(unsharded.outcome).toBe(4011);
      expect(await unsharded.closed).toBe(4011);
      // Guilds seeded in a row fall on alternate shards of two: two and one, and the bot is not in the fourth.
      expect((await follow([0, 2])).outcome).toEqual({ session: expect.any(String) });
      expect(platform.identifyRefusals()).toEqual([]);
    });

    it('takes one identify per bucket per interval, and the refused connection may identify later', async () => {
      platform.setSharding({ shards: 2, identifyIntervalMs: 300 });
      expect((await follow([0, 2])).outcome).toEqual({ session: expect.any(String) });

      const second = await follow([1, 2]);
      expect(second.outcome).toBe('INVALID_SESSION');
      expect(platform.identifyRefusals()).toEqual([
        { at: expect.any(Number), userId: platform.botUserId, shard: [1, 2], reason: 'identify_rate' },
      ]);
      await sleep(300);
      expect(await identify(second, [1, 2])).toEqual({ session: expect.any(String) });
    });

    it('takes identifies of different buckets at once', async () => {
      platform.setSharding({ shards: 2, maxConcurrency: 2 });

      expect((await follow([0, 2])).outcome).toEqual({ session: expect.any(String) });
      expect((await follow([1, 2])).outcome).toEqual({ session: expect.any(String) });
      expect(platform.identifyRefusals()).toEqual([]);
    });

    it('lets two sessions follow one shard, as the platform does, and sends each the shard’s events', async () => {
      const first = await follow([0, 1]);
      const second = await follow([0, 1]);
      expect(first.outcome).toEqual({ session: expect.any(String) });
      expect(second.outcome).toEqual({ session: expect.any(String) });
      expect(second.outcome).not.toEqual(first.outcome);
      expect(platform.gatewayConnections().map((c) => c.shard)).toEqual([
        [0, 1],
        [0, 1],
      ]);

      const channels = (await raider.get(Routes.guildChannels(seeded.guildId))) as {
        id: string;
        type: number;
      }[];
      await raider.delete(Routes.channel(channels.find((channel) => channel.type === 0)!.id));
      const deleted = (shard: RawShard) => shard.received.some((m) => m.t === 'CHANNEL_DELETE');
      await until(() => deleted(first) && deleted(second), 'CHANNEL_DELETE on both sessions');
      expect(platform.identifyRefusals()).toEqual([]);
      // Noted, for tests of clients that must not do it.
      const sessionIds = [second, first].map((shard) => (shard.outcome as { session: string }).session);
      expect(platform.gatewayShardOverlaps()).toEqual([
        { at: expect.any(Number), userId: platform.botUserId, shard: [0, 1], sessionIds },
      ]);
    });

    it('refuses a shard count other than a live session’s', async () => {
      await follow([0, 2]);

      expect((await follow([1, 3])).outcome).toBe('INVALID_SESSION');
      expect(platform.identifyRefusals().map((refusal) => [refusal.shard, refusal.reason])).toEqual([
        [[1, 3], 'shard_count_mismatch'],
      ]);
    });

    it('keeps a session resumable after a 4200 close or a dropped socket, and ends it after 1000', async () => {
      const resumedAfter = async (code?: number) => {
        const shard = await follow([0, 1]);
        await close(shard, code);
        const resumed = await resume((shard.outcome as { session: string }).session, 1);
        if (typeof resumed.outcome === 'object') await close(resumed, 1000);
        return resumed.outcome;
      };

      expect(await resumedAfter(4200)).toEqual({ session: expect.any(String) });
      expect(await resumedAfter(undefined)).toEqual({ session: expect.any(String) });
      expect(await resumedAfter(1000)).toBe('INVALID_SESSION');
      expect(platform.identifyRefusals()).toEqual([]);
    });

    it('resumes a session while another session follows the shard', async () => {
      const dropped = await follow([0, 1]);
      await close(dropped);
      const successor = await follow([0, 1]);
      expect(successor.outcome).toEqual({ session: expect.any(String) });

      const { session } = dropped.outcome as { session: string };
      expect((await resume(session, 1)).outcome).toEqual({ session });
      expect(platform.identifyRefusals()).toEqual([]);
      expect(platform.gatewayShardOverlaps().map((overlap) => overlap.sessionIds)).toEqual([
        [session, (successor.outcome as { session: string }).session],
      ]);
    });

    it('sends each guild’s events only to its shard’s session, through a sharded discord.js client', async () => {
      const guildIds = [seeded.guildId, ...seedMore(3)];
      platform.setSharding({ shards: 2, maxConcurrency: 2 });
      const client = new Client({
        intents: [GatewayIntentBits.Guilds],
        rest: { api: `${platform.url}/api` },
        shards: 'auto',
      });
      clients.push(client);
      const deletes: [string, number][] = [];
      client.on(Events.Raw, (packet: GatewayMessage, shardId: number) => {
        if (packet.t === 'CHANNEL_DELETE')
          deletes.push([(packet.d as { guild_id: string }).guild_id, shardId]);
      });
      // discord.js takes the recommended shard count and the max concurrency from /gateway/bot.
      await Promise.all([once(client, Events.ClientReady), client.login(platform.botToken)]);
      expect(platform.gatewayConnections().map((c) => c.shard)).toEqual(
        expect.arrayContaining([
          [0, 2],
          [1, 2],
        ]),
      );

      for (const guildId of guildIds) {
        const channels = (await raider.get(Routes.guildChannels(guildId))) as { id: string; type: number }[];
        await raider.delete(Routes.channel(channels.find((channel) => channel.type === 0)!.id));
      }
      await until(() => deletes.length >= guildIds.length, 'a delete per guild');

      expect(deletes.sort()).toEqual(guildIds.map((id) => [id, shardOf(id, 2)]).sort());
      expect(new Set(deletes.map(([, shardId]) => shardId))).toEqual(new Set([0, 1]));
      expect(platform.identifyRefusals()).toEqual([]);
    });

    it('sends a raw shard READY and GUILD_CREATE for its own guilds only', async () => {
      const guildIds = [seeded.guildId, ...seedMore(15)];
      platform.setSharding({ shards: 8, maxConcurrency: 8 });

      const shards = await Promise.all(Array.from({ length: 8 }, (_, id) => follow([id, 8])));

      await until(
        () => shards.reduce((sum, shard) => sum + createdGuildIds(shard).length, 0) >= guildIds.length,
        'a GUILD_CREATE per guild',
      );
      const created = shards.map((shard) => createdGuildIds(shard).sort());
      expect(created).toEqual(
        Array.from({ length: 8 }, (_, id) => guildIds.filter((guildId) => shardOf(guildId, 8) === id).sort()),
      );
      // Guilds seeded in a row spread over every shard.
      expect(created.every((ids) => ids.length > 0)).toBe(true);
    });
  });
});
