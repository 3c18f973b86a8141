/**
 * The most snapshots of the system's own kinds a guild keeps. A new one makes room by deleting the
 * oldest of its kind that nothing needs; a raid that opens incident after incident, or restore
 * after restore, cannot fill the database.
 */
export const KEPT_PER_GUILD = { antinuke: 20, pre_restore: 10 } as const;
export type LimitedTrigger = keyof typeof KEPT_PER_GUILD;

/** One kept snapshot of a limited kind, and whether anything still needs it. */
export interface KeptSnapshot {
  id: string;
  created_at: Date;
  /** Read by a pending or running restore, the snapshot of an open incident, or of an active restore's start. */
  needed: boolean;
}

/**
 * Which of the guild's snapshots of a kind to delete so that one more fits within `kept`: the
 * oldest that nothing needs. `room` is false when even then there is none (all needed).
 */
export function makeRoom(
  snapshots: readonly KeptSnapshot[],
  kept: number,
): { deleted: string[]; room: boolean } {
  const oldestFirst = [...snapshots].sort((a, b) => a.created_at.getTime() - b.created_at.getTime());
  let excess = oldestFirst.length - (kept - 1);
  const deleted: string[] = [];
  for (const snapshot of oldestFirst) {
    if (excess <= 0) break;
    if (snapshot.needed) continue;
    deleted.push(snapshot.id);
    excess -= 1;
  }
  return { deleted, room: excess <= 0 };
}
