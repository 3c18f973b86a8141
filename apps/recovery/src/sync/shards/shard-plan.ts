import type { LeaseView } from './shard-leases.repository';

/** What one pass of the coordinator does with its shards. */
export interface ShardPlan {
  /** Free shards to claim, up to this replica's fair share. */
  claim: number[];
  /** Shards above the fair share, to hand over (another replica is there to take them). */
  release: number[];
  /** Shards followed whose lease is no longer this replica's: their connections close at once. */
  lost: number[];
  /** Leases this replica holds without following the shard (a claim cut short): given up. */
  stray: number[];
}

/**
 * A replica's share of `shardCount` shards is ceil(shards / members) where members are the
 * replicas using the same count; above it a replica lets go of its highest shards, below it it
 * claims the lowest free ones. Holdings then settle with every replica at the share or one below
 * (8 shards over 3 replicas: 3, 3 and 2), and nothing moves while they do.
 */
export function planShards(view: LeaseView, shardCount: number, followed: ReadonlySet<number>): ShardPlan {
  const held = view.shards.filter((shard) => shard.shardCount === shardCount);
  const leased = new Set(held.filter((shard) => shard.pid === view.self).map((shard) => shard.shardId));
  const kept = [...followed].filter((shardId) => leased.has(shardId)).sort((a, b) => a - b);
  const lost = [...followed].filter((shardId) => !leased.has(shardId)).sort((a, b) => a - b);
  const stray = [...leased].filter((shardId) => !followed.has(shardId)).sort((a, b) => a - b);
  const members = new Set(
    view.members.filter((member) => member.shardCount === shardCount).map((member) => member.pid),
  ).size;
  const share = Math.ceil(shardCount / Math.max(1, members));
  if (kept.length > share) return { claim: [], release: kept.slice(share), lost, stray };
  const taken = new Set(held.map((shard) => shard.shardId));
  const free = Array.from({ length: shardCount }, (_, shardId) => shardId).filter((id) => !taken.has(id));
  return { claim: free.slice(0, share - kept.length), release: [], lost, stray };
}
