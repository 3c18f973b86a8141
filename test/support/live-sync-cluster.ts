import { ChatPlatformClient, shardOf } from '@lib/chat-platform';
import type {
  FakeChatPlatform,
  GatewayConnectionInfo,
  IdentifyRefusal,
  ShardingSettings,
  ShardOverlap,
} from '@lib/sandbox';
import { PermissionFlagsBits as P } from 'discord-api-types/v10';
import type { DataSource } from 'typeorm';
import type { AppProcess } from './app-process';
import { BillingEventStream, SubscriptionScenario } from './billing-events';
import { openDataSource } from './database';
import { RecoveryStack } from './recovery-stack';
import { metricSum, scrapeMetrics } from './replica-set';
import { ADMIN, OWNER } from './restore-scenario';
import { waitFor } from './wait';

/**
 * The refusals that mean two connections disagreed on the shard count. Two connections of one
 * shard are no refusal (the platform allows them): the sampler catches those instead.
 */
export const DOUBLE_FOLLOW_REASONS: readonly IdentifyRefusal['reason'][] = ['shard_count_mismatch'];

/** The raider's account: the compromised admin, acting through the API with a token of its own. */
export const RAIDER_TOKEN = 'raider-bot-token';

/** What one live-sync replica's `/metrics` says now. */
export interface ReplicaStatus {
  /** Shards with `live_sync_shard_owned{shard="N"}` above 0, ascending. */
  owned: number[];
  /** `live_sync_shard_count`. */
  shardCount: number;
  /** `live_sync_followed_guilds`. */
  followed: number;
  /** `nodejs_heap_size_used_bytes`. */
  heapUsed: number;
}

/** A registered ENTERPRISE guild with AntiNuke watching it, and channels for a raider to delete. */
export interface RaidGuild {
  guildId: string;
  platformGuildId: string;
  /** ch-1..ch-6, in order. */
  channels: string[];
  /** AntiNuke's threshold for the guild: this many deletes by one actor open an incident. */
  threshold: number;
  /** ... within this many seconds. */
  windowSeconds: number;
}

/** A moment the metrics or the fake showed one shard followed twice. */
export interface DoubleOwner {
  at: number;
  shard: number;
  source: 'metrics' | 'gateway';
  /** Replica indices (metrics) or connection session ids (gateway). */
  holders: string[];
}

const SCRAPE_TIMEOUT_MS = 2_000;
const RAID_CHANNELS = 6;

/**
 * Recovery with the Temporal worker that runs AntiNuke (not itself live sync), plus N live-sync
 * replicas: recovery processes with `RECOVERY_ROLE=api` and `LIVE_SYNC_ENABLED=true`, each on a port
 * of its own, which share the bot's gateway shards between them through Postgres advisory locks.
 * Replica indices are stable: a killed replica's slot stays empty, `addReplica` takes the next one.
 *
 * Order of use: `start()`, `seedGuilds()` / `raidGuild()` (before the replicas, so their IDENTIFY
 * already carries every guild), `addReplica()` n times, `waitForCoverage()`.
 */
export class LiveSyncCluster {
  readonly stack = new RecoveryStack({ worker: true });
  readonly platform: FakeChatPlatform = this.stack.platform;
  /** Every guild the harness seeded on the fake (the bot is in each), raid guilds included. */
  readonly guildIds: string[] = [];
  private readonly replicas: (AppProcess | null)[] = [];
  /** Replicas stopped or killed, by index: their output stays readable. */
  private readonly gone = new Map<number, AppProcess>();
  private dataSource?: DataSource;
  private billing?: BillingEventStream;
  private raider?: ChatPlatformClient;
  private sampler?: ShardSampler;
  private seeded = 0;

  constructor(
    private readonly options: {
      sharding: Partial<ShardingSettings>;
      /** Added to every replica's environment (e.g. LIVE_SYNC_SHARD_COUNT). */
      replicaEnv?: Record<string, string | undefined>;
      replicaReadyTimeoutMs?: number;
    },
  ) {}

  get shards(): number {
    return this.options.sharding.shards ?? 1;
  }

  async start(): Promise<void> {
    await this.stack.start();
    this.platform.setSharding(this.options.sharding);
    this.dataSource = await openDataSource();
    this.billing = new BillingEventStream();
    this.platform.registerBotToken(RAIDER_TOKEN, ADMIN, 'admin');
    this.raider = new ChatPlatformClient({ apiBaseUrl: `${this.platform.url}/api`, botToken: RAIDER_TOKEN });
  }

  /** `count` small guilds (2 roles, 3 channels, the owner and the bot) on the fake only; their ids. */
  seedGuilds(count: number): string[] {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const n = ++this.seeded;
      const { guildId } = this.platform.seedGuild({
        name: `Sharded ${n}`,
        owner: { id: OWNER, username: 'owner' },
        roles: [
          { name: 'Member', permissions: P.SendMessages | P.ViewChannel },
          { name: 'Moderator', permissions: P.ManageMessages },
        ],
        channels: [{ name: 'general' }, { name: 'rules' }, { name: 'off-topic' }],
      });
      ids.push(guildId);
    }
    this.guildIds.push(...ids);
    return ids;
  }

  /**
   * Seeds a raidable guild (ADMIN holds Administrator; channels ch-1..ch-6), registers it with
   * recovery, puts it on ENTERPRISE through billing and licensing, and waits until AntiNuke's
   * workflow watches it: as test/integration/antinuke.test.ts and live-sync.test.ts do.
   */
  async raidGuild(): Promise<RaidGuild> {
    const n = ++this.seeded;
    const seeded = this.platform.seedGuild({
      name: `Raid ${n}`,
      owner: { id: OWNER, username: 'owner' },
      roles: [
        { name: 'Member', permissions: P.SendMessages | P.ViewChannel },
        { name: 'Admin', permissions: P.Administrator },
      ],
      channels: Array.from({ length: RAID_CHANNELS }, (_, i) => ({ name: `ch-${i + 1}` })),
      members: [{ username: 'admin', id: ADMIN, roles: ['Admin'] }],
    });
    this.guildIds.push(seeded.guildId);
    const owner = this.stack.user(OWNER);
    const registered = await this.stack.call(this.stack.recovery, 'POST', '/api/v1/guilds', owner, {
      platform_guild_id: seeded.guildId,
    });
    if (registered.status !== 200)
      throw new Error(`guild registration failed: ${JSON.stringify(registered.body)}`);
    const guildId = registered.body.id as string;
    await this.billing!.publish(new SubscriptionScenario(guildId).started('ENTERPRISE'));
    await waitFor(
      'the licence',
      async () => {
        const rows = await this.dataSource!.query(`SELECT 1 FROM licensing.licenses WHERE guild_id = $1`, [
          guildId,
        ]);
        return rows.length === 1;
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    const settings = await waitFor(
      'AntiNuke to watch the guild',
      async () => {
        const view = await this.stack.call(
          this.stack.recovery,
          'GET',
          `/api/v1/guilds/${guildId}/antinuke`,
          owner,
        );
        return view.body.workflow_running === true ? view.body : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    const threshold = Number(settings.threshold);
    if (!(threshold >= 2 && threshold <= RAID_CHANNELS))
      throw new Error(
        `AntiNuke threshold ${String(settings.threshold)}: the raid guild has ${RAID_CHANNELS} channels`,
      );
    return {
      guildId,
      platformGuildId: seeded.guildId,
      channels: Array.from({ length: RAID_CHANNELS }, (_, i) => seeded.channels[`ch-${i + 1}`]),
      threshold,
      windowSeconds: Number(settings.window_seconds),
    };
  }

  /**
   * The raider deletes `threshold` channels of the guild, one request after the other; resolves with
   * the time (this process's clock, ms) the threshold-crossing delete's REST call returned.
   */
  async raid(guild: RaidGuild): Promise<number> {
    for (const channel of guild.channels.slice(0, guild.threshold)) await this.raider!.deleteChannel(channel);
    return Date.now();
  }

  /**
   * Waits for the guild's first incident row; `opened_at` is the column AntiNuke stamps it with,
   * `seenAt` when this process first read the row (this process's clock).
   */
  async incident(
    guildId: string,
    { timeoutMs = 60_000, intervalMs = 100 }: { timeoutMs?: number; intervalMs?: number } = {},
  ): Promise<{ id: string; openedAt: Date; seenAt: number; actor: string; count: number }> {
    return waitFor(
      `an incident in guild ${guildId}`,
      async () => {
        const [row] = await this.dataSource!.query<
          { id: string; opened_at: Date; actor_platform_user_id: string; count: number }[]
        >(
          `SELECT id, opened_at, actor_platform_user_id, count FROM recovery.antinuke_incidents
            WHERE guild_id = $1 ORDER BY opened_at LIMIT 1`,
          [guildId],
        );
        return row
          ? {
              id: row.id,
              openedAt: row.opened_at,
              seenAt: Date.now(),
              actor: row.actor_platform_user_id,
              count: row.count,
            }
          : undefined;
      },
      { timeoutMs, intervalMs },
    );
  }

  /** Starts one more live-sync replica; resolves with its index once it is ready. */
  async addReplica(env: Record<string, string | undefined> = {}): Promise<number> {
    const index = this.replicas.length;
    this.replicas.push(null);
    this.replicas[index] = await this.stack.startRecoveryProcess(
      {
        RECOVERY_ROLE: 'api',
        LIVE_SYNC_ENABLED: 'true',
        LIVE_SYNC_BALANCE_MS: '500',
        ...this.options.replicaEnv,
        ...env,
      },
      { readyTimeoutMs: this.options.replicaReadyTimeoutMs ?? 120_000 },
    );
    return index;
  }

  /**
   * Stops replica `index` with `signal` (SIGKILL: a crash; SIGTERM: a graceful scale-down) and waits
   * for it to exit; resolves with the time the signal was sent. Until it has exited it is still
   * scraped (a SIGTERMed replica may hold shards while it shuts down).
   */
  async kill(index: number, signal: NodeJS.Signals = 'SIGKILL'): Promise<number> {
    const replica = this.replicas[index];
    if (!replica) throw new Error(`replica ${index} is not running`);
    const at = Date.now();
    await replica.stop(signal);
    this.replicas[index] = null;
    this.gone.set(index, replica);
    return at;
  }

  /** Indices of the replicas not stopped or killed. */
  live(): number[] {
    return this.replicas.flatMap((replica, index) => (replica ? [index] : []));
  }

  replica(index: number): AppProcess {
    const replica = this.replicas[index] ?? this.gone.get(index);
    if (!replica) throw new Error(`no replica ${index}`);
    return replica;
  }

  /** One scrape of the replica's `/metrics`; rejects if it does not answer (it died). */
  async status(index: number): Promise<ReplicaStatus> {
    const replica = this.replicas[index];
    if (!replica) throw new Error(`replica ${index} is not running`);
    const samples = await Promise.race([
      scrapeMetrics(replica),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`replica ${index}: /metrics timed out`)), SCRAPE_TIMEOUT_MS),
      ),
    ]);
    const owned = samples
      .filter((sample) => sample.name === 'live_sync_shard_owned' && sample.value > 0)
      .map((sample) => Number(sample.labels.shard))
      .sort((a, b) => a - b);
    return {
      owned,
      shardCount: metricSum(samples, 'live_sync_shard_count'),
      followed: metricSum(samples, 'live_sync_followed_guilds'),
      heapUsed: metricSum(samples, 'nodejs_heap_size_used_bytes'),
    };
  }

  /** Replica index -> shards it holds, per each live replica's metrics (one that does not answer is left out). */
  async ownership(order: number[] = this.live()): Promise<Map<number, number[]>> {
    const result = new Map<number, number[]>();
    for (const index of order) {
      const status = await this.status(index).catch(() => undefined);
      if (status) result.set(index, status.owned);
    }
    return result;
  }

  async followedGuilds(index: number): Promise<number> {
    return (await this.status(index)).followed;
  }

  /** How many of the harness's guilds fall on these shards. */
  guildsOnShards(shards: readonly number[]): number {
    const wanted = new Set(shards);
    return this.guildIds.filter((id) => wanted.has(shardOf(id, this.shards))).length;
  }

  /** The bot's identified gateway connections that carry a shard. */
  shardConnections(): GatewayConnectionInfo[] {
    return this.platform
      .gatewayConnections()
      .filter(
        (connection) =>
          connection.userId === this.platform.botUserId &&
          connection.sessionId !== null &&
          connection.shard !== null,
      );
  }

  /**
   * What the fake recorded of a shard followed twice: a session of the bot started or resumed while
   * another followed the same shard (the platform allows it, so the fake notes it rather than
   * refuses it), and IDENTIFYs refused because the shard count differed.
   */
  doubleFollows(): (IdentifyRefusal | ShardOverlap)[] {
    const botId = this.platform.botUserId;
    return [
      ...this.platform.gatewayShardOverlaps().filter((overlap) => overlap.userId === botId),
      ...this.platform.identifyRefusals().filter((refusal) => DOUBLE_FOLLOW_REASONS.includes(refusal.reason)),
    ];
  }

  /**
   * Waits until every shard 0..shards-1 is held by exactly one live replica (metrics) and the fake
   * has exactly one identified connection per shard, all with this shard count. With `balanced`
   * (default) also until each live replica holds floor(shards/n) or ceil(shards/n) of them: after a
   * replica joins, coverage is exact before the newcomer has taken its share.
   */
  async waitForCoverage(
    shards: number = this.shards,
    {
      balanced = true,
      timeoutMs = 90_000,
      intervalMs = 200,
    }: { balanced?: boolean; timeoutMs?: number; intervalMs?: number } = {},
  ): Promise<Map<number, number[]>> {
    let last = '';
    try {
      return await waitFor(
        `${shards} shards each followed once${balanced ? ', balanced' : ''}`,
        async () => {
          const owners = await this.ownership();
          const connections = this.shardConnections();
          last = `metrics ${describeOwnership(owners)}; gateway ${connections
            .map((connection) => `${connection.shard!.join('/')}`)
            .join(' ')}`;
          const held = [...owners.values()].flat().sort((a, b) => a - b);
          if (held.join() !== Array.from({ length: shards }, (_, i) => i).join()) return false;
          if (owners.size !== this.live().length) return false;
          if (balanced) {
            const low = Math.floor(shards / owners.size);
            const high = Math.ceil(shards / owners.size);
            if ([...owners.values()].some((owned) => owned.length < low || owned.length > high)) return false;
          }
          const connected = connections
            .filter((connection) => connection.shard![1] === shards)
            .map((connection) => connection.shard![0])
            .sort((a, b) => a - b);
          if (connections.length !== shards || connected.join() !== held.join()) return false;
          return owners;
        },
        { timeoutMs, intervalMs },
      );
    } catch (error) {
      throw new Error(`${(error as Error).message}; last seen: ${last}`);
    }
  }

  /** Starts sampling for double owners (see ShardSampler); one sampler per cluster. */
  startSampler(intervalMs = 150): ShardSampler {
    this.sampler = new ShardSampler(this, intervalMs);
    this.sampler.start();
    return this.sampler;
  }

  /** The last lines of every replica's output, for a failure message. */
  outputs(chars = 2_000): string {
    return [...this.replicas.map((replica, index) => replica ?? this.gone.get(index))]
      .map((replica, index) => `--- live-sync replica ${index} ---\n${replica?.output().slice(-chars) ?? ''}`)
      .join('\n');
  }

  async stop(): Promise<void> {
    await this.sampler?.stop();
    await Promise.all(this.replicas.flatMap((replica) => (replica ? [replica.stop()] : [])));
    await this.stack.stop();
    await this.billing?.close();
    await this.dataSource?.destroy();
  }
}

export function describeOwnership(owners: Map<number, number[]>): string {
  return [...owners].map(([index, shards]) => `#${index}:[${shards.join(',')}]`).join(' ');
}

/**
 * While a test runs, looks every `intervalMs` for a shard followed twice:
 * - per the replicas' metrics: all live replicas are scraped once in one order and once in the
 *   reverse order, and a shard counts as doubly owned only if two replicas claimed it in both
 *   rounds. A handoff between two scrapes of one round (the old owner read just before it let go,
 *   the new one just after it took over) shows in one round only, so it is not mistaken for an
 *   overlap; a real overlap shorter than a round can be missed, which is why the fake's own record
 *   (`doubleFollows()`) is the primary check.
 * - per the fake: two identified connections of the bot with the same shard at one moment.
 */
export class ShardSampler {
  readonly doubles: DoubleOwner[] = [];
  samples = 0;
  private timer?: NodeJS.Timeout;
  private tick?: Promise<void>;
  private running = false;

  constructor(
    private readonly cluster: LiveSyncCluster,
    private readonly intervalMs: number,
  ) {}

  start(): void {
    this.running = true;
    this.schedule();
  }

  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    await this.tick;
  }

  private schedule(): void {
    if (!this.running) return;
    this.timer = setTimeout(() => {
      this.tick = this.look()
        .catch(() => undefined)
        .finally(() => {
          this.tick = undefined;
          this.schedule();
        });
    }, this.intervalMs);
  }

  private async look(): Promise<void> {
    const at = Date.now();
    const gateway = new Map<number, string[]>();
    for (const connection of this.cluster.shardConnections()) {
      const shard = connection.shard![0];
      gateway.set(shard, [...(gateway.get(shard) ?? []), connection.sessionId!]);
    }
    for (const [shard, holders] of gateway)
      if (holders.length > 1) this.doubles.push({ at, shard, source: 'gateway', holders });

    const order = this.cluster.live();
    const first = ownersByShard(await this.cluster.ownership(order));
    const second = ownersByShard(await this.cluster.ownership([...order].reverse()));
    for (const [shard, holders] of first) {
      const confirmed = holders.filter((index) => second.get(shard)?.includes(index));
      if (confirmed.length > 1)
        this.doubles.push({ at, shard, source: 'metrics', holders: confirmed.map(String) });
    }
    this.samples++;
  }
}

function ownersByShard(owners: Map<number, number[]>): Map<number, number[]> {
  const byShard = new Map<number, number[]>();
  for (const [index, shards] of owners)
    for (const shard of shards) byShard.set(shard, [...(byShard.get(shard) ?? []), index]);
  return byShard;
}
