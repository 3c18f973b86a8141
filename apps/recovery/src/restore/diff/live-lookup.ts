import type { PlatformChannel, PlatformRole } from '@lib/chat-platform';
import type { DiffInput } from './diff-model';

export interface Pair<T> {
  target: T;
  live: T;
}

/** Live items reached from snapshot ids; a resolver's answer counts only if that item is live. */
export class LiveLookup {
  private readonly roles: Map<string, PlatformRole>;
  private readonly channels: Map<string, PlatformChannel>;

  constructor(private readonly input: DiffInput) {
    this.roles = new Map(input.live.roles.map((role) => [role.id, role]));
    this.channels = new Map(input.live.channels.map((channel) => [channel.id, channel]));
  }

  role(snapshotId: string): PlatformRole | undefined {
    // @everyone carries the guild's id and exists for as long as the guild does.
    const id =
      snapshotId === this.input.target.guild.id
        ? this.input.live.guild.id
        : this.input.ids.resolve('role', snapshotId);
    return id === undefined ? undefined : this.roles.get(id);
  }

  liveRole(liveId: string): PlatformRole | undefined {
    return this.roles.get(liveId);
  }

  channel(snapshotId: string): PlatformChannel | undefined {
    const id = this.input.ids.resolve('channel', snapshotId);
    return id === undefined ? undefined : this.channels.get(id);
  }

  /** A snapshot channel reference (parent, setting) as a live id: null stays null. */
  channelId(snapshotId: string | null): string | null | undefined {
    return snapshotId === null ? null : this.channel(snapshotId)?.id;
  }
}

/**
 * The pairs whose rank in the snapshot's order differs from their rank in the live order. Ranks,
 * not position numbers: deleting one item renumbers everything above it without moving anything.
 */
export function reordered<T, P extends Pair<T>>(pairs: readonly P[], order: (a: T, b: T) => number): Set<P> {
  const byTarget = [...pairs].sort((a, b) => order(a.target, b.target));
  const byLive = [...pairs].sort((a, b) => order(a.live, b.live));
  return new Set(byTarget.filter((pair, rank) => byLive[rank] !== pair));
}
