import type { LeaseView } from './shard-leases.repository';
import { planShards } from './shard-plan';

const SELF = 100;

/** A view where `holders[pid]` lists the shards (of `count`) each member holds. */
function view(count: number, holders: Record<number, number[]>, extraMembers: number[] = []): LeaseView {
  const pids = [...Object.keys(holders).map(Number), ...extraMembers];
  return {
    self: SELF,
    members: pids.map((pid) => ({ pid, shardCount: count })),
    shards: Object.entries(holders).flatMap(([pid, shards]) =>
      shards.map((shardId) => ({ pid: Number(pid), shardCount: count, shardId })),
    ),
  };
}

describe('planShards', () => {
  it('claims every shard when alone', () => {
    expect(planShards(view(8, { [SELF]: [] }), 8, new Set())).toEqual({
      claim: [0, 1, 2, 3, 4, 5, 6, 7],
      release: [],
      lost: [],
      stray: [],
    });
  });

  it('claims the lowest free shards up to ceil(shards / members)', () => {
    const plan = planShards(view(8, { [SELF]: [], 1: [0, 1, 2], 2: [3, 4, 5] }), 8, new Set());
    expect(plan.claim).toEqual([6, 7]);
  });

  it('lets go of its highest shards above the share when a replica joins', () => {
    const plan = planShards(
      view(8, { [SELF]: [0, 1, 2, 3], 1: [4, 5, 6, 7] }, [2]),
      8,
      new Set([0, 1, 2, 3]),
    );
    expect(plan).toEqual({ claim: [], release: [3], lost: [], stray: [] });
  });

  it('takes a dead replica’s shards: its leases are gone from the view', () => {
    const plan = planShards(view(8, { [SELF]: [0, 1, 2], 1: [3, 4, 5] }), 8, new Set([0, 1, 2]));
    expect(plan.claim).toEqual([6]);
  });

  it('moves nothing once settled at the share or one below (3, 3, 2)', () => {
    const settled: [number[], Record<number, number[]>][] = [
      [[0, 1, 2], { 1: [3, 4, 5], 2: [6, 7] }],
      [[6, 7], { 1: [0, 1, 2], 2: [3, 4, 5] }],
    ];
    for (const [mine, others] of settled) {
      const plan = planShards(view(8, { [SELF]: mine, ...others }), 8, new Set(mine));
      expect(plan).toEqual({ claim: [], release: [], lost: [], stray: [] });
    }
  });

  it('names a followed shard whose lease is gone as lost, and a lease it does not follow as stray', () => {
    const plan = planShards(view(4, { [SELF]: [0, 3], 1: [1] }), 4, new Set([0, 1]));
    expect(plan.lost).toEqual([1]);
    expect(plan.stray).toEqual([3]);
  });

  it('counts only the members using the same shard count', () => {
    const lease = view(8, { [SELF]: [0, 1, 2, 3, 4, 5, 6, 7] });
    lease.members.push({ pid: 7, shardCount: 16 });
    expect(planShards(lease, 8, new Set([0, 1, 2, 3, 4, 5, 6, 7])).release).toEqual([]);
  });

  it('leaves a replica idle when there are more replicas than shards', () => {
    const plan = planShards(view(2, { [SELF]: [], 1: [0], 2: [1] }), 2, new Set());
    expect(plan.claim).toEqual([]);
  });
});
