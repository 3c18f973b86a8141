import { AuditLogEvent } from 'discord-api-types/v10';
import type { JournalAuditEntry } from '../../sync/change-journal-entry';
import { snowflakeTime } from '../../sync/destructive-actions';
import type { AuditLogEntry } from '../../sync/guild-events';
import { toJournalAuditEntry } from '../../sync/change-journal-entry';

/** The platform's epoch for snowflakes (ms since 1970 of snowflake 0). */
const PLATFORM_EPOCH_MS = 1_420_070_400_000n;

/**
 * How long before the removal recorded the entry that removed the bot may have been written: the
 * removal is stamped when live sync handled it, after the platform wrote the kick.
 */
export const REMOVAL_SLACK_MS = 60_000;

const SNOWFLAKE = /^\d{1,20}$/;

/** What the read-back of a removed bot's audit log found. */
export interface ReadBackFindings {
  /** The entry that kicked or banned the bot, nearest before the removal; null when none was read. */
  removal: AuditLogEntry | null;
  /** Who removed it: the removal entry's actor, or the raider the incident already names. */
  raider: string | null;
  /** The raider's entries from the removal on, oldest first, as the journal keeps them. */
  entries: JournalAuditEntry[];
}

/** The smallest snowflake of that millisecond: entries with a greater id were written at it or later. */
export function snowflakeAt(at: Date): string {
  const ms = BigInt(Math.max(0, at.getTime()));
  return String(ms > PLATFORM_EPOCH_MS ? (ms - PLATFORM_EPOCH_MS) << 22n : 0n);
}

function removesBot(entry: AuditLogEntry, botUserId: string): boolean {
  return (
    entry.targetId === botUserId &&
    (entry.actionType === Number(AuditLogEvent.MemberKick) ||
      entry.actionType === Number(AuditLogEvent.MemberBanAdd))
  );
}

/**
 * From the audit-log entries read back after the bot's return (any order), the one that removed the
 * bot (the last kick or ban of it written no later than the removal was recorded) and the raider's
 * entries from it on. The raider is the platform's word (the entry's actor); the reason is the
 * actor's own text and is not looked at. Entries of the bot itself are never the raider's.
 */
export function readBackFindings(
  entries: readonly AuditLogEntry[],
  input: { botUserId: string; removedAt: Date; knownRaider: string | null },
): ReadBackFindings {
  const ordered = entries
    .filter((entry) => SNOWFLAKE.test(entry.id))
    .sort((a, b) => compareSnowflakes(a.id, b.id));
  const latest = input.removedAt.getTime() + 2_000;
  let removal: AuditLogEntry | null = null;
  for (const entry of ordered) {
    if (snowflakeTime(entry.id).getTime() > latest) break;
    if (removesBot(entry, input.botUserId) && entry.actorId !== input.botUserId) removal = entry;
  }
  const raider = input.knownRaider ?? removal?.actorId ?? null;
  if (raider === null || raider === input.botUserId) return { removal, raider: null, entries: [] };
  const from = removal?.id ?? snowflakeAt(input.removedAt);
  const raid = ordered.filter((entry) => entry.actorId === raider && compareSnowflakes(entry.id, from) >= 0);
  return { removal, raider, entries: raid.map(toJournalAuditEntry) };
}

export function compareSnowflakes(a: string, b: string): number {
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
