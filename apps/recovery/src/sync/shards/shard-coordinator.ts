import { Logger } from '@nestjs/common';
import { ChatPlatformClient } from '@lib/chat-platform';
import { ScheduledPass } from '@lib/runtime';
import type { SchedulerRegistry } from '@nestjs/schedule';
import type { GuildEventSource, SourceEvent } from '../guild-events';
import { liveSyncMetrics as metrics } from '../live-sync.metrics';
import type { GatewayShards, ShardTrouble } from './gateway-shards';
import { planShards } from './shard-plan';
import type { LeaseView, ShardLeases } from './shard-leases.repository';

export interface ShardCoordinatorOptions {
  /** `LIVE_SYNC_SHARD_COUNT`: unset, the count the live replicas use, else the platform's. */
  shardCount?: number;
  /** How often claims are looked at (`LIVE_SYNC_BALANCE_MS`): a dead replica's shards move within about this. */
  balanceMs: number;
}

/**
 * Live sync's event source across replicas (docs/decisions/live-sync-across-replicas.md):
 * this replica follows the gateway shards it holds a lease on, and only those. Every pass it
 * looks at who takes part and who holds what, lets go of shards above its fair share and claims
 * free ones up to it, so the shards spread evenly and a dead replica's are taken within a pass.
 *
 * A shard is never followed twice: it is claimed before its connection opens, and its connection
 * is closed before it is let go. When the lease connection fails, whether the leases still hold is
 * unknown, so every shard is closed at once. Each shard let go of is announced to live sync
 * (`shard_released`), which forgets its guilds.
 */
export class ShardCoordinator implements GuildEventSource {
  private readonly logger = new Logger(ShardCoordinator.name);
  private readonly pass: ScheduledPass;
  private listener: ((event: SourceEvent) => void) | undefined;
  private shardCount = 0;
  private readonly owned = new Set<number>();

  constructor(
    private readonly options: ShardCoordinatorOptions,
    private readonly leases: ShardLeases,
    private readonly gateway: GatewayShards,
    private readonly platform: ChatPlatformClient,
    scheduler: SchedulerRegistry,
  ) {
    this.pass = new ScheduledPass(scheduler, 'live-sync-shards', () => this.balance());
  }

  /** The shards this replica follows, in order. */
  shards(): number[] {
    return [...this.owned].sort((a, b) => a - b);
  }

  /**
   * The shards this replica holds but does not follow: closed by the platform for good, or waiting
   * for session starts. Such a shard keeps its lease, so no other replica retries it meanwhile.
   */
  troubles(): ShardTrouble[] {
    return this.gateway.troubles();
  }

  /**
   * Joins with the shard count in force and starts the passes. The bot's own user is announced
   * first: a resumed session gets no READY to name it, and its actions must never count as a raid.
   */
  async start(listener: (event: SourceEvent) => void): Promise<void> {
    this.listener = listener;
    const [plan, bot] = await Promise.all([this.gateway.plan(), this.platform.getCurrentUser()]);
    listener({ type: 'ready', botUserId: bot.id });
    await this.leases.open();
    try {
      this.shardCount = this.options.shardCount ?? inForce(await this.leases.view()) ?? plan.shards;
      await this.leases.join(this.shardCount);
    } catch (error) {
      await this.leases.close();
      throw error;
    }
    metrics.shardCount.set(this.shardCount);
    this.logger.log(
      { shard_count: this.shardCount, recommended: plan.shards, max_concurrency: plan.maxConcurrency },
      'live sync joined',
    );
    this.pass.every(this.options.balanceMs, { now: true });
  }

  /** Hands every shard over (closed resumably, sessions saved), then ends the leases. */
  async stop(): Promise<void> {
    await this.pass.stop();
    await Promise.all(this.shards().map((shardId) => this.letGo(shardId, true)));
    await this.leases.close();
    this.listener = undefined;
  }

  /** One pass: rejoin after a lost lease connection, or move towards this replica's fair share. */
  private async balance(): Promise<void> {
    if (!this.leases.connected) return this.rejoin();
    let view: LeaseView;
    try {
      view = await this.leases.view();
      await this.gateway.saveSessions();
    } catch (error) {
      return this.leaseLost(error);
    }
    const plan = planShards(view, this.shardCount, this.owned);
    for (const shardId of plan.lost) {
      this.logger.error({ shard_id: shardId }, 'shard lease not held any more: its connection is closed');
      await this.letGo(shardId, false);
    }
    for (const shardId of plan.stray)
      await this.leases.release(this.shardCount, shardId).catch(() => undefined);
    for (const shardId of plan.release)
      await this.letGo(shardId, true).catch((error) => this.leaseLost(error));
    if (plan.claim.length === 0) return;
    try {
      for (const shardId of await this.leases.claim(this.shardCount, plan.claim)) this.follow(shardId);
    } catch (error) {
      return this.leaseLost(error);
    }
  }

  private follow(shardId: number): void {
    const listener = this.listener;
    if (!listener) return;
    this.owned.add(shardId);
    metrics.shardOwned.set({ shard: String(shardId) }, 1);
    this.logger.log({ shard_id: shardId, shard_count: this.shardCount }, 'shard followed');
    this.gateway.connect(shardId, this.shardCount, listener);
  }

  /**
   * Closes the shard's connection first, then gives up its lease: nobody can follow it meanwhile.
   * A connection that fails to close cleanly (its session not saved) is closed all the same.
   */
  private async letGo(shardId: number, handOver: boolean): Promise<void> {
    this.owned.delete(shardId);
    metrics.shardOwned.remove({ shard: String(shardId) });
    await this.gateway
      .close(shardId, handOver)
      .catch((error: unknown) =>
        this.logger.warn({ err: String(error), shard_id: shardId }, 'shard closed without its session saved'),
      );
    this.listener?.({ type: 'shard_released', shardId, shardCount: this.shardCount });
    this.logger.log({ shard_id: shardId, hand_over: handOver }, 'shard let go');
    if (this.leases.connected) await this.leases.release(this.shardCount, shardId);
  }

  /** The leases may be gone already: stop following at once, then start again from nothing. */
  private async leaseLost(error: unknown): Promise<void> {
    this.logger.error(
      { err: String(error), shards: this.shards() },
      'live-sync lease connection failed: every shard closed',
    );
    await Promise.all(this.shards().map((shardId) => this.letGo(shardId, true).catch(() => undefined)));
    await this.leases.close();
  }

  private async rejoin(): Promise<void> {
    try {
      await this.leases.open();
      await this.leases.join(this.shardCount);
      this.logger.log({ shard_count: this.shardCount }, 'live sync joined again');
    } catch (error) {
      await this.leases.close();
      this.logger.warn({ err: String(error) }, 'live sync could not join yet; trying again');
    }
  }
}

/** The shard count the replicas holding shards use, if any do. */
function inForce(view: LeaseView): number | undefined {
  return view.shards[0]?.shardCount ?? view.members.find((member) => member.pid !== view.self)?.shardCount;
}
