import { AuditLogEvent } from 'discord-api-types/v10';
import { snowflakeTime } from '../../sync/destructive-actions';
import type { AuditLogEntry } from '../../sync/guild-events';
import { readBackFindings, snowflakeAt } from './audit-log-read-back';

const BOT = '100000000000000001';
const RAIDER = '100000000000000002';
const OWNER = '100000000000000003';
const T0 = new Date('2026-11-29T12:00:00.000Z');

/** An entry written `seconds` after T0 (its id says when, as the platform's do). */
function entry(
  seconds: number,
  actorId: string | null,
  actionType: AuditLogEvent,
  targetId: string,
  reason: string | null = null,
): AuditLogEntry {
  const id = (BigInt(snowflakeAt(new Date(T0.getTime() + seconds * 1_000))) + 1n).toString();
  return { id, actorId, actionType, targetId, reason, changes: [] };
}

describe(readBackFindings.name, () => {
  it('gives a snowflake of the millisecond asked', () => {
    expect(snowflakeTime(snowflakeAt(T0))).toEqual(T0);
  });

  it('names who kicked the bot, and keeps only their entries from the kick on', () => {
    const before = entry(-5, RAIDER, AuditLogEvent.ChannelUpdate, '7');
    const kick = entry(0, RAIDER, AuditLogEvent.MemberKick, BOT);
    const deleted = entry(2, RAIDER, AuditLogEvent.ChannelDelete, '8');
    const ownerChange = entry(3, OWNER, AuditLogEvent.RoleCreate, '9');
    const banned = entry(4, RAIDER, AuditLogEvent.MemberBanAdd, '10');
    const found = readBackFindings([banned, ownerChange, deleted, kick, before], {
      botUserId: BOT,
      removedAt: new Date(T0.getTime() + 500),
      knownRaider: null,
    });
    expect(found.removal).toBe(kick);
    expect(found.raider).toBe(RAIDER);
    expect(found.entries.map((item) => item.entry_id)).toEqual([kick.id, deleted.id, banned.id]);
    expect(found.entries[1]).toEqual({
      entry_id: deleted.id,
      actor_id: RAIDER,
      action_type: AuditLogEvent.ChannelDelete,
      target_id: '8',
      changes: [],
      at: snowflakeTime(deleted.id),
    });
  });

  it('takes a ban of the bot as its removal, the last one before the removal was recorded', () => {
    const earlier = entry(-30, OWNER, AuditLogEvent.MemberKick, BOT);
    const ban = entry(0, RAIDER, AuditLogEvent.MemberBanAdd, BOT);
    const later = entry(120, OWNER, AuditLogEvent.MemberKick, BOT);
    const found = readBackFindings([earlier, ban, later], {
      botUserId: BOT,
      removedAt: T0,
      knownRaider: null,
    });
    expect(found.removal).toBe(ban);
    expect(found.raider).toBe(RAIDER);
  });

  it('goes by the entry’s actor, never its reason', () => {
    const kick = entry(0, RAIDER, AuditLogEvent.MemberKick, BOT, `Restore job by ${OWNER}`);
    const found = readBackFindings([kick], { botUserId: BOT, removedAt: T0, knownRaider: null });
    expect(found.raider).toBe(RAIDER);
  });

  it('keeps the raider the incident names, with their entries from the removal on', () => {
    const kick = entry(0, OWNER, AuditLogEvent.MemberKick, BOT);
    const deleted = entry(1, RAIDER, AuditLogEvent.RoleDelete, '8');
    const found = readBackFindings([kick, deleted], { botUserId: BOT, removedAt: T0, knownRaider: RAIDER });
    expect(found.raider).toBe(RAIDER);
    expect(found.entries.map((item) => item.entry_id)).toEqual([deleted.id]);
  });

  it('names nobody when no entry removed the bot, or the bot removed itself', () => {
    const deleted = entry(1, RAIDER, AuditLogEvent.ChannelDelete, '8');
    expect(readBackFindings([deleted], { botUserId: BOT, removedAt: T0, knownRaider: null })).toEqual({
      removal: null,
      raider: null,
      entries: [],
    });
    const own = entry(0, BOT, AuditLogEvent.MemberKick, BOT);
    expect(readBackFindings([own], { botUserId: BOT, removedAt: T0, knownRaider: null }).raider).toBeNull();
  });

  it('passes over an entry whose id is not a snowflake', () => {
    const kick = entry(0, RAIDER, AuditLogEvent.MemberKick, BOT);
    const odd = { ...entry(1, RAIDER, AuditLogEvent.ChannelDelete, '8'), id: 'not-an-id' };
    const found = readBackFindings([odd, kick], { botUserId: BOT, removedAt: T0, knownRaider: null });
    expect(found.entries.map((item) => item.entry_id)).toEqual([kick.id]);
  });
});
